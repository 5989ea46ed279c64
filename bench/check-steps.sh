# Sourced by the GPU machine's check scripts (cuda-check.sh,
# device-helpers-check.sh): step NAME COMMAND... runs the command with its
# output in $out/NAME.log, prints the log's last lines, and keeps the exit
# status in result[NAME] for the script's summary.
declare -A result

step() {
  local name=$1; shift
  echo "== $name: $*"
  "$@" > "$out/$name.log" 2>&1
  local code=$?
  tail -n 4 "$out/$name.log"
  result[$name]=$code
  return $code
}
