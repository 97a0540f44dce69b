#!/bin/bash
# Runs the SLURM example for real: on a one-node cluster on this
# machine, a job builds the default task's feature store, the task is judged as
# N shards reading it by an array job that depends on it, merged by a job that
# depends on the array, and the merged outputs are compared with one
# `reusesim simulate` run that reads the corpus. Not part of `cargo test` (CI must not depend on a
# scheduler), but it passes on a fresh Debian machine, as root, without systemd.
#
# It installs slurm-wlm and munge when missing, starts munged, slurmctld and
# slurmd with a configuration and state folders of its own, and stops what it
# started when it ends. Settings (environment): SHARDS (4), SEEDS (2),
# ITERATIONS (20000), REUSESIM (the binary to run; by default the release build, brought up
# to date by cargo and taken from wherever cargo put it, CARGO_TARGET_DIR included),
# WORK (a new folder under /tmp).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
shards=${SHARDS:-4}
seeds=${SEEDS:-2}
iterations=${ITERATIONS:-20000}
reusesim=${REUSESIM:-}
work=${WORK:-$(mktemp -d /tmp/slurm-check.XXXXXX)}
mkdir -p "$work"

log() { printf '[slurm-check %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }
fail() { log "FAILED: $*"; exit 1; }
seconds_since() { awk -v from="$1" -v to="$(date +%s.%N)" 'BEGIN { printf "%.1f", to - from }'; }

if [ -z "$reusesim" ]; then
    log "building reusesim"
    # Cargo names the executable it built, so CARGO_TARGET_DIR (absolute or relative) and
    # any build.target-dir setting are honoured.
    reusesim=$(cd "$repo" && cargo build --release --bin reusesim \
        --message-format=json-render-diagnostics |
        sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)
fi
[ -x "$reusesim" ] || fail "no reusesim binary at '$reusesim'"

missing=()
command -v slurmctld >/dev/null || missing+=(slurm-wlm)
command -v munged >/dev/null || missing+=(munge)
if [ ${#missing[@]} -gt 0 ]; then
    log "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
log "$(slurmctld -V), munge $(munged --version 2>&1 | head -1)"

# munge: a key, its folders, and the daemon (unless one runs already).
munge_pid=""
mkdir -p /etc/munge /run/munge /var/lib/munge /var/log/munge
if [ ! -s /etc/munge/munge.key ]; then
    log "creating a munge key"
    if command -v mungekey >/dev/null; then
        mungekey --create --keyfile=/etc/munge/munge.key
    else
        dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none
    fi
fi
chmod 0400 /etc/munge/munge.key
if munge -n >/dev/null 2>&1; then
    log "munged already runs; using it"
else
    munged --force --pid-file="$work/munged.pid"
    for _ in $(seq 50); do munge -n >/dev/null 2>&1 && break; sleep 0.1; done
    munge_pid=$(cat "$work/munged.pid")
    log "started munged (pid $munge_pid)"
fi

host=$(hostname -s)
cpus=$(nproc)
memory_mb=$(awk '/MemTotal/ { printf "%d", $2 / 1024 * 0.9 }' /proc/meminfo)
mkdir -p "$work/state" "$work/spool" "$work/jobs"
export SLURM_CONF="$work/slurm.conf"
cat >"$SLURM_CONF" <<CONF
ClusterName=reusesim-check
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=$host CPUs=$cpus RealMemory=$memory_mb State=UNKNOWN
PartitionName=check Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF

slurm_started=""
stop() {
    if [ -n "$slurm_started" ]; then
        log "stopping slurmctld and slurmd"
        scontrol shutdown >/dev/null 2>&1 || true
        for _ in $(seq 100); do
            [ -e "$work/slurmctld.pid" ] && kill -0 "$(cat "$work/slurmctld.pid")" 2>/dev/null || break
            sleep 0.1
        done
    fi
    if [ -n "$munge_pid" ]; then
        log "stopping munged (pid $munge_pid)"
        kill "$munge_pid" 2>/dev/null || true
    fi
}
trap stop EXIT

slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
slurm_started=yes
for _ in $(seq 150); do
    state=$(sinfo -h -n "$host" -o %T 2>/dev/null || true)
    [ "$state" = idle ] && break
    sleep 0.2
done
[ "$state" = idle ] || fail "node $host is ${state:-unreachable}; see $work/slurmctld.log and $work/slurmd.log"
log "cluster up: node $host, $cpus CPUs, ${memory_mb} MB, state $state"

study=(--seeds "$seeds" --iterations "$iterations")
log "one process: reusesim simulate ${study[*]}"
started=$(date +%s.%N)
"$reusesim" simulate "${study[@]}" --out "$work/one" 2>"$work/one.log"
one_seconds=$(seconds_since "$started")
log "one process: ${one_seconds} s"

log "SLURM: the feature store, then $shards shards (array 0-$((shards - 1))) reading it, and a merge, each with --dependency=afterok"
started=$(date +%s.%N)
(
    cd "$work/jobs"
    OUT="$work/slurm" REUSESIM="$reusesim" \
        CORPUS="$repo/runs/synth-passage/corpus.tsv.gz" STORE="$work/passage.store" \
        REUSESIM_ARGS="--task $repo/runs/synth-passage/task.toml ${study[*]}" \
        "$repo/examples/slurm/submit.sh" "$shards" --wait
)
slurm_seconds=$(seconds_since "$started")
log "SLURM: ${slurm_seconds} s"
for out in "$work"/jobs/*.out; do
    log "--- $(basename "$out")"
    cat "$out"
done

[ -f "$work/slurm/summary.json" ] || fail "the merge wrote no summary.json (see the job logs above)"
log "comparing $work/slurm with $work/one"
# The study's outputs under the current folder: every file but the judging's own records (the
# journal, and its lock file, which holds the last holder's process id).
outputs() { find . -type f ! -name units.journal ! -name units.journal.lock | sed 's|^\./||' | sort; }
differences=0
while IFS= read -r file; do
    if [ ! -f "$work/slurm/$file" ]; then
        log "missing from the merge: $file"; differences=$((differences + 1)); continue
    fi
    case $file in
        summary.json | report.md)
            cmp -s <(grep -v elapsed "$work/one/$file") <(grep -v elapsed "$work/slurm/$file") ;;
        *) cmp -s "$work/one/$file" "$work/slurm/$file" ;;
    esac || { log "differs: $file"; differences=$((differences + 1)); }
done < <(cd "$work/one" && outputs)
extra=$(cd "$work/slurm" && outputs | grep -v '^shards/' | comm -13 <(cd "$work/one" && outputs) -)
[ -z "$extra" ] || { log "only in the merge: $extra"; differences=$((differences + 1)); }
files=$(cd "$work/one" && outputs | wc -l)
[ "$differences" -eq 0 ] || fail "$differences file(s) differ"
log "identical: $files files (elapsed_seconds aside)"
log "wall times: one process ${one_seconds} s, SLURM $shards shards + merge ${slurm_seconds} s"
log "PASSED"
