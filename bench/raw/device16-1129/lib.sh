# Sourced by this folder's scripts: D (the devrun folder beside the
# repository), and log, which appends a line to $OUT/log.txt and rewrites
# the real $OUT/results.tgz from the results so far (OUT is moved to a
# scratch folder, so that only the archive comes back).
D=$(cd "$(dirname "$0")/../../../devrun" && pwd)
T0=$(date +%s)
RES=$(mktemp -d); REAL_OUT=$OUT; OUT=$RES
save() { tar -czf $REAL_OUT/results.tgz -C $RES .; }
log() { echo "$(( $(date +%s) - T0 ))s $*" >> $OUT/log.txt; save; }
