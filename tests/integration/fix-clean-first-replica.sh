#!/bin/bash
# fix-clean-first.sh on a 3x2 -> 4x2 distributed-replicate volume.
LCTL_CF_KIND=rep exec bash "$LCTL_SRCDIR/tests/integration/fix-clean-first.sh"
