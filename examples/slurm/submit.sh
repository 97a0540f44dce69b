#!/bin/bash
# Submits a reusesim study as N shards (an array job) and their merge, which
# starts only when every shard succeeded:
#
#   OUT=/shared/results/study REUSESIM_ARGS="--task task.toml --seeds 10" \
#       examples/slurm/submit.sh 8
#
# With STORE (and CORPUS) set, the corpus's feature store is built once first
# (index.sbatch), and the shards and the merge, which start after it, read it:
#
#   CORPUS=/shared/msmarco_v2_passage STORE=/shared/msmarco_v2_passage.store \
#       OUT=/shared/results/dl21 REUSESIM_ARGS="--task dl21.toml" submit.sh 64
#
# Extra arguments after N go to the merge's sbatch (e.g. --wait).
set -euo pipefail
shards=${1:?usage: submit.sh N [sbatch options for the merge job]}
shift
here=$(cd "$(dirname "$0")" && pwd)
after=()
if [ -n "${STORE:-}" ]; then
    index=$(sbatch --parsable "$here/index.sbatch")
    index=${index%%;*}
    echo "feature store: job $index"
    after=(--dependency="afterok:$index" --kill-on-invalid-dep=yes)
fi
array=$(sbatch --parsable "${after[@]}" --array="0-$((shards - 1))" "$here/study.sbatch")
array=${array%%;*}
echo "shards: job $array (array 0-$((shards - 1)))"
merge=$(sbatch --parsable --dependency="afterok:$array" --kill-on-invalid-dep=yes "$@" "$here/merge.sbatch")
echo "merge: job ${merge%%;*}"
