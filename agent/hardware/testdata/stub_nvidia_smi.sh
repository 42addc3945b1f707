#!/bin/sh
# A stand-in for an old driver's nvidia-smi: two cards, odd values ([N/A], [Not Supported], blank),
# a name with a comma, and no `compute_cap` field (asked for, it refuses the whole query, as real
# drivers do). Every call is appended to $STUB_SMI_LOG when set. STUB_SMI_FAIL=1 fails everything.
[ -n "$STUB_SMI_LOG" ] && echo "$*" >> "$STUB_SMI_LOG"
if [ "$STUB_SMI_FAIL" = 1 ]; then
  echo "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."
  exit 9
fi
case "$1" in
  "")
    echo "| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: 11.4     |"
    exit 0 ;;
  --query-compute-apps=pid,used_memory,gpu_uuid)
    echo "1234, 2048, GPU-0000aaaa-0000-0000-0000-000000000000"
    echo "5678, [N/A], GPU-0000bbbb-0000-0000-0000-000000000000"
    exit 0 ;;
esac
fields="${1#--query-gpu=}"
case "$fields" in
  *compute_cap*)
    echo "Field \"compute_cap\" is not a valid field to query."
    echo ""
    echo "Please run 'nvidia-smi --help-query-gpu' for more information."
    exit 2 ;;
  index,uuid,name,memory.total,memory.used,memory.free)
    echo "0, GPU-0000aaaa-0000-0000-0000-000000000000, Tesla T4, 15109, 2048, 13061"
    echo "1, GPU-0000bbbb-0000-0000-0000-000000000000, Tesla K80, rev B, 11441, [N/A], 11441"
    ;;
  driver_version) printf '470.82.01\n470.82.01\n' ;;
  index,utilization.gpu) printf '0, 37\n1, [N/A]\n' ;;
  index,temperature.gpu) printf '0, 45\n1, [Not Supported]\n' ;;
  index,power.draw) printf '0, 27.53\n1, \n' ;;
  index,power.limit) printf '0, 70.00\n1, 149.00\n' ;;
  index,pcie.link.gen.max) printf '0, 3\n1, 3\n' ;;
  index,pcie.link.width.max) printf '0, 16\n1, N/A\n' ;;
  *)
    echo "Field \"$fields\" is not a valid field to query."
    exit 2 ;;
esac
