#!/usr/bin/env bash
# test_layers.sh: the floors of the house (docs/method.md 6.0) hold: base <- quant <- sim <-
# analysis <- cli, and no file includes a header of a floor above its own; libstepq (lib/) stands
# on base, quant and sim. Also: nothing in
# the repository cites the project's outside notes instead of docs/method.md.
#   test_layers.sh SOURCE_DIR
set -u
cd "$1" || exit 1
fail=0
floors=(base quant sim analysis cli)
rank() { local i; for i in "${!floors[@]}"; do [ "${floors[$i]}" = "$1" ] && echo "$i"; done; }
for dir in "${floors[@]}"; do
    mine=$(rank "$dir")
    for f in "$dir"/*.[ch] "$dir"/*/*.[ch] "$dir"/*/*.cu "$dir"/*/*.cuh; do
        [ -f "$f" ] || continue
        # includes of the form "../floor/x.h" (and "../../floor/x.h" from a subfolder)
        while IFS= read -r inc; do
            target=$(echo "$inc" | sed -E 's|.*"(\.\./)+([a-z]+)/.*|\2|')
            r=$(rank "$target")
            [ -z "$r" ] && continue
            if [ "$r" -gt "$mine" ]; then
                echo "FAIL: $f includes $inc: $dir may not use $target (floors: ${floors[*]})"
                fail=1
            fi
        done < <(grep -hE '^#include "(\.\./)+[a-z]+/' "$f")
    done
done
# base/ includes nothing of the project but itself
if grep -lE '^#include "\.\./' base/*.[ch] 2>/dev/null; then echo "FAIL: base/ includes another floor"; fail=1; fi
# libstepq (lib/) stands on base, quant and sim, and of analysis on its calibration alone (the
# one driver it runs, sq_calibrate): no other driver and no front end in it; its public header
# (include/) includes nothing of the project
if grep -nE '^#include "\.\./(analysis|cli)/' lib/*.[ch] | grep -v '"\.\./analysis/calibrate\.h"'; then
    echo "FAIL: lib/ uses analysis/ (beyond calibrate.h) or cli/"; fail=1
fi
if grep -nE '^#include "' include/*.h; then echo "FAIL: include/stepq.h includes a header of the project"; fail=1; fi
# the method is docs/method.md: no citation of a SPEC file that is not in the repository (the
# project's own files: not a build tree or a virtual environment's packages)
hits=$(grep -rnE '\bSPEC( [0-9]|\.md| section)' --include=*.c --include=*.h --include=*.cu \
      --include=*.cfg --include=*.gp --include=*.sh --include=*.md --include=*.py \
      --exclude-dir=build --exclude-dir=.venv --exclude-dir=venv --exclude-dir=.git . 2>/dev/null \
      | grep -v '^./tests/test_layers.sh')
if [ -n "$hits" ]; then echo "FAIL: citations of SPEC instead of docs/method.md:"; echo "$hits" | head; fail=1; fi
[ $fail -eq 0 ] && echo "test_layers: the floors hold"
exit $fail
