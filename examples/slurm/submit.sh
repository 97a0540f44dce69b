#!/bin/bash
# Submits a reusesim study as N shards (an array job) and their merge, which
# starts only when every shard succeeded:
#
#   OUT=/shared/results/study REUSESIM_ARGS="--task task.toml --seeds 10" \
#       examples/slurm/submit.sh 8
#
# Extra arguments after N go to the merge's sbatch (e.g. --wait).
set -euo pipefail
shards=${1:?usage: submit.sh N [sbatch options for the merge job]}
shift
here=$(cd "$(dirname "$0")" && pwd)
array=$(sbatch --parsable --array="0-$((shards - 1))" "$here/study.sbatch")
array=${array%%;*}
echo "shards: job $array (array 0-$((shards - 1)))"
merge=$(sbatch --parsable --dependency="afterok:$array" --kill-on-invalid-dep=yes "$@" "$here/merge.sbatch")
echo "merge: job ${merge%%;*}"
