#!/bin/bash
# Runs the SLURM example for real: on a one-node cluster on this machine, a job builds the
# default task's feature store, the task is judged as N shards reading it by an array job that
# depends on it, merged by a job that depends on the array, and the merged outputs are compared
# with one `reusesim simulate` run that reads the corpus: the same files, byte for byte, the
# elapsed time (in summary.json, report.md and report.html) aside. `.ci/run` runs it after the
# test suite; it passes on a fresh Debian machine, as root, without systemd.
#
# It installs slurm-wlm and munge when missing. Everything it starts is its own: a munged with
# its own key and socket, and slurmctld and slurmd on two free ports, with their configuration,
# state and logs in the work folder; it stops them when it ends, however it ends, and removes
# the work folder after a pass (a failure keeps it and names it). Settings (environment):
# SHARDS (4), SEEDS (2), ITERATIONS (20000), TIMEOUT (seconds the jobs may take, 600),
# REUSESIM (the binary to run; by default the release build, brought up to date by cargo and
# taken from wherever cargo put it, CARGO_TARGET_DIR included), WORK (a new folder under /tmp).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
shards=${SHARDS:-4}
seeds=${SEEDS:-2}
iterations=${ITERATIONS:-20000}
timeout=${TIMEOUT:-600}
reusesim=${REUSESIM:-}
work=${WORK:-$(mktemp -d /tmp/slurm-check.XXXXXX)}
mkdir -p "$work"
chmod 0700 "$work"

log() { printf '[slurm-check %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }
passed=""
fail() { log "FAILED: $*"; log "logs and outputs kept in $work"; exit 1; }
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

# The daemons' pid files; stop() ends each one that was written, so nothing outlives the check.
munge_dir="$work/munge"
munge_socket="$munge_dir/munge.socket"
pid_files=("$work/slurmctld.pid" "$work/slurmd.pid" "$munge_dir/munged.pid")
stop() {
    local pid_file pid
    if [ -s "$work/slurmctld.pid" ] && kill -0 "$(cat "$work/slurmctld.pid")" 2>/dev/null; then
        scancel --partition=check 2>/dev/null || true
    fi
    for pid_file in "${pid_files[@]}"; do
        [ -s "$pid_file" ] || continue
        pid=$(cat "$pid_file")
        kill -0 "$pid" 2>/dev/null || continue
        log "stopping $(basename "$pid_file" .pid) (pid $pid)"
        kill "$pid" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
    done
    if [ -n "$passed" ] && [ -z "${WORK:-}" ]; then rm -rf "$work"; fi
}
trap stop EXIT
trap 'exit 130' INT TERM

# munge: a key, a socket and a daemon of the check's own, so a munged that already runs (or
# its absence) makes no difference.
mkdir -p "$munge_dir"
chmod 0700 "$munge_dir"
dd if=/dev/urandom of="$munge_dir/munge.key" bs=1 count=1024 status=none
chmod 0400 "$munge_dir/munge.key"
munged --force --socket="$munge_socket" --key-file="$munge_dir/munge.key" \
    --pid-file="$munge_dir/munged.pid" --log-file="$munge_dir/munged.log" \
    --seed-file="$munge_dir/munged.seed" ||
    fail "munged did not start; see $munge_dir/munged.log"
for _ in $(seq 50); do munge --socket="$munge_socket" -n >/dev/null 2>&1 && break; sleep 0.1; done
munge --socket="$munge_socket" -n >/dev/null 2>&1 || fail "munged does not answer on $munge_socket"
log "started munged (pid $(cat "$munge_dir/munged.pid"))"

# Two ports nothing listens on, from a random start, for slurmctld and slurmd.
is_listened() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
free_port() {
    local port=$1
    while is_listened "$port" || [ "$port" = "${2:-}" ]; do port=$((port + 1)); done
    echo "$port"
}
controller_port=$(free_port $((20000 + RANDOM % 20000)))
node_port=$(free_port $((controller_port + 1)) "$controller_port")

host=$(hostname -s)
cpus=$(nproc)
memory_mb=$(awk '/MemTotal/ { printf "%d", $2 / 1024 * 0.9 }' /proc/meminfo)
mkdir -p "$work/state" "$work/spool" "$work/jobs"
export SLURM_CONF="$work/slurm.conf"
cat >"$SLURM_CONF" <<CONF
ClusterName=reusesim-check
SlurmctldHost=$host
SlurmctldPort=$controller_port
SlurmdPort=$node_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$munge_socket
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

slurmctld -f "$SLURM_CONF" || fail "slurmctld did not start; see $work/slurmctld.log"
slurmd -f "$SLURM_CONF" || fail "slurmd did not start; see $work/slurmd.log"
state=""
for _ in $(seq 150); do
    state=$(sinfo -h -n "$host" -o %T 2>/dev/null || true)
    [ "$state" = idle ] && break
    sleep 0.2
done
[ "$state" = idle ] || fail "node $host is ${state:-unreachable}; see $work/slurmctld.log and $work/slurmd.log"
log "cluster up: node $host, $cpus CPUs, ${memory_mb} MB, ports $controller_port and $node_port"

study=(--seeds "$seeds" --iterations "$iterations")
log "one process: reusesim simulate ${study[*]}"
started=$(date +%s.%N)
"$reusesim" simulate "${study[@]}" --out "$work/one" 2>"$work/one.log" ||
    fail "the one-process run failed; see $work/one.log"
one_seconds=$(seconds_since "$started")
log "one process: ${one_seconds} s"

log "SLURM: the feature store, then $shards shards (array 0-$((shards - 1))) reading it, and a merge, each with --dependency=afterok"
started=$(date +%s.%N)
submitted=0
(
    cd "$work/jobs"
    OUT="$work/slurm" REUSESIM="$reusesim" \
        CORPUS="$repo/runs/synth-passage/corpus.tsv.gz" STORE="$work/passage.store" \
        REUSESIM_ARGS="--task $repo/runs/synth-passage/task.toml ${study[*]}" \
        timeout "$timeout" "$repo/examples/slurm/submit.sh" "$shards" --wait
) || submitted=$?
slurm_seconds=$(seconds_since "$started")
log "SLURM: ${slurm_seconds} s"
for out in "$work"/jobs/*.out; do
    [ -e "$out" ] || continue
    log "--- $(basename "$out")"
    cat "$out"
done
[ "$submitted" -ne 124 ] || fail "the jobs did not end within $timeout s (TIMEOUT); squeue: $(squeue -h 2>&1 | tr '\n' ';')"
[ "$submitted" -eq 0 ] || fail "submit.sh or a job failed (exit $submitted; the job logs are above)"
[ -f "$work/slurm/summary.json" ] || fail "the merge wrote no summary.json (see the job logs above)"

log "comparing $work/slurm with $work/one"
# The study's outputs under the current folder: every file but the judging's own records (the
# journal, and its lock file, which holds the last holder's process id).
outputs() { find . -type f ! -name units.journal ! -name units.journal.lock | sed 's|^\./||' | sort; }
# The elapsed time masked: the number after each "elapsed" within a few characters, as in
# `elapsed_seconds": 1.51` and `elapsed: 1.5 s` (the only values two runs of a study differ in).
mask_elapsed() { sed -E 's/(elapsed[^0-9]{0,15})[0-9][0-9.]*/\1#/g' "$1"; }
differences=0
while IFS= read -r file; do
    if [ ! -f "$work/slurm/$file" ]; then
        log "missing from the merge: $file"; differences=$((differences + 1)); continue
    fi
    case $file in
        summary.json | report.md | report.html)
            cmp -s <(mask_elapsed "$work/one/$file") <(mask_elapsed "$work/slurm/$file") ;;
        *) cmp -s "$work/one/$file" "$work/slurm/$file" ;;
    esac || { log "differs: $file"; differences=$((differences + 1)); }
done < <(cd "$work/one" && outputs)
extra=$(cd "$work/slurm" && outputs | grep -v '^shards/' | comm -13 <(cd "$work/one" && outputs) -)
[ -z "$extra" ] || { log "only in the merge: $extra"; differences=$((differences + 1)); }
files=$(cd "$work/one" && outputs | wc -l)
[ "$differences" -eq 0 ] || fail "$differences file(s) differ"
log "identical: $files files (the elapsed time aside)"
log "wall times: one process ${one_seconds} s, SLURM $shards shards + merge ${slurm_seconds} s"
passed=yes
log "PASSED"
