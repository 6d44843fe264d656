# SPDX-License-Identifier: GPL-2.0
# Judge one UML console log written by tools/vm/init.sh (see tools/vm/run.sh).
#
#   awk -v stack=ours -v e2e="a b" -v kunit="x_kunit y_kunit" -v uml_rc=0 \
#       -v timed_out=0 -v mode=test -f parse-log.awk LOG
#
# Prints one line per test, "PASS name", "FAIL name: reason" or "SKIP name:
# reason", then "N skipped" and, as the last line, "N passed, N failed". A
# kernel splat fails the test during which it appeared; a test that never
# finished (VM died, hung) fails as well; a skipped KUnit case is not a pass.
# An e2e script skips by printing "## SKIP: why" and exiting 77 (skip() in
# tests/e2e/lib.bash): that is a skip, neither a pass nor a failure, on the
# stock stack (a test of a part only ours has); on our stack every test
# applies, so a skip there fails, as does exit 77 without a SKIP line.

function pass(name) { print "PASS " name; npass++ }
function skip(name, why) { print "SKIP " name ": " why; nskip++ }
function fail(name, why) { print "FAIL " name ": " why; nfail++ }
function strip_ktap_prefix(s) { sub(/^@@KTAP /, "", s); return s }
# show_tail(t): the last TAILN output lines of e2e test t, indented "    | ".
function show_tail(t,    k, from) {
	from = ntail[t] > TAILN ? ntail[t] - TAILN + 1 : 1
	for (k = from; k <= ntail[t]; k++) print "    | " tail[t, k % TAILN]
}

BEGIN {
	TAILN = 6
	REPORTN = 120
	phase = "vm:boot"
	splat_re = "(WARNING: |BUG: |Oops|general protection fault|Kernel panic|" \
		"possible circular locking|possible recursive locking|inconsistent lock state|" \
		"KASAN|UBSAN|ODEBUG|list_add corruption|list_del corruption|" \
		"blocked for more than|Call Trace:|suspicious RCU usage|" \
		"stack-protector|segfault at|Segmentation fault)"
	nktap = 0
}

{
	sub(/\r+$/, "")
	line = $0
}

# Kernel messages carry a timestamp (CONFIG_PRINTK_TIME); userspace output
# (rping, test scripts) does not, so it cannot raise a false alarm.
line ~ /^\[ *[0-9]+\.[0-9]+\] / && line ~ splat_re {
	if (!(phase in splat)) splat[phase] = line
	nsplat++
	if (nsplat <= 40) splat_lines = splat_lines "\n    " line
	if (report_left == 0 && nreport == 0) report_left = REPORTN
}

# The first splat's whole report (a lockdep report names its locks and
# chains on the lines after its WARNING, which splat_re does not match):
# the kernel lines that follow it, so that a run's output alone can say
# which locks were involved.
report_left > 0 && line ~ /^\[ *[0-9]+\.[0-9]+\] / {
	report_lines = report_lines "\n    " line
	nreport++
	report_left--
}

# An e2e script's own "## FAIL: why" line (its first one counts): the
# summary says why, not only the exit status.
phase ~ /^e2e:/ && line ~ /^## FAIL: / {
	if (!(substr(phase, 5) in failwhy)) failwhy[substr(phase, 5)] = substr(line, 10)
}

# An e2e script's own "## SKIP: why" line (its last one counts).
phase ~ /^e2e:/ && line ~ /^## SKIP: / {
	skipwhy[substr(phase, 5)] = substr(line, 10)
	next
}

# The last lines of each e2e test's output, shown under its FAIL line: a
# CI report then says what the test saw, not only that it failed.
phase ~ /^e2e:/ && line !~ /@@(ORCM|KTAP|KMEMLEAK) / && line !~ /^[ \t]*$/ {
	t = substr(phase, 5)
	ntail[t]++
	tail[t, ntail[t] % TAILN] = substr(line, 1, 200)
}

index(line, "@@KTAP ") == 1 {
	ktap[cur_kunit, ++nk[cur_kunit]] = strip_ktap_prefix(line)
	next
}

index(line, "@@KMEMLEAK ") == 1 {
	l = line; sub(/^@@KMEMLEAK /, "", l)
	if (l ~ /unreferenced object/) nleak++
	if (nleaklines++ < 60) leak_lines = leak_lines "\n    " l
	next
}

index(line, "@@ORCM ") > 0 {
	m = substr(line, index(line, "@@ORCM ") + 7)
	n = split(m, w, " ")
	k = w[1]
	if (k == "BOOT") seen["boot"] = 1
	else if (k == "LOAD-BEGIN") phase = "vm:load"
	else if (k == "LOAD-ERROR") load_err = load_err (load_err == "" ? "" : "; ") substr(m, 12)
	else if (k == "LOAD-END") { load_rc = w[3]; sub(/^rc=/, "", load_rc); seen["load"] = 1 }
	else if (k == "KUNIT-BEGIN") { cur_kunit = w[2]; phase = "kunit:" w[2]; kbegun[w[2]] = 1 }
	else if (k == "KUNIT-SUITE") nsuites[w[2]]++
	else if (k == "KUNIT-END") { r = w[3]; sub(/^rc=/, "", r); krc[w[2]] = r }
	else if (k == "E2E-BEGIN") { phase = "e2e:" w[2]; ebegun[w[2]] = 1 }
	else if (k == "E2E-END") { r = w[3]; sub(/^rc=/, "", r); erc[w[2]] = r }
	# tools/vm/init.sh's stack_after: the CM modules after each e2e test
	# (and after KUnit, "kunit"). The first mismatch after a good check
	# names the test during which the stack changed; a test that began
	# on a wrong stack says since when.
	else if (k == "STACK-OK") { stack_ok[w[2]] = 1; stack_bad_since = "" }
	else if (k == "STACK-MISMATCH") {
		why = m; sub(/^STACK-MISMATCH [^ ]+ /, "", why); sub(/ \(t=[0-9.]*\)$/, "", why)
		if (!(w[2] in stack_bad)) {
			if (stack_bad_since == "") {
				stack_bad[w[2]] = "the " stack " stack changed during this test: " why
				stack_bad_since = w[2]
			} else
				stack_bad[w[2]] = "ran on a stack that is not the " stack " one (changed during " stack_bad_since "): " why
		} else
			stack_bad[w[2]] = stack_bad[w[2]] "; " why
	}
	else if (k == "UNLOAD-BEGIN") phase = "vm:unload"
	else if (k == "UNLOAD-END") { unload_rc = w[2]; sub(/^rc=/, "", unload_rc); seen["unload"] = 1 }
	else if (k == "UNLOAD-ERROR") unload_err = unload_err " " substr(m, 14)
	else if (k == "KMEMLEAK-BEGIN") { phase = "vm:kmemleak"; seen["kmemleak"] = 1 }
	else if (k == "KMEMLEAK-END") { seen["kmemleak_end"] = 1; phase = "vm:shutdown" }
	else if (k == "KMEMLEAK-UNAVAILABLE") { seen["kmemleak_na"] = 1; kmemleak_na = substr(m, 22); sub(/ \(t=[0-9.]*\)$/, "", kmemleak_na) }
	else if (k == "DEMO-BEGIN") phase = "demo"
	else if (k == "DEMO-END") { demo_rc = w[2]; sub(/^rc=/, "", demo_rc); seen["demo"] = 1 }
	else if (k == "DONE") { seen["done"] = 1; phase = "vm:shutdown" }
	next
}

# KTAP: a result line with no deeper result lines since the previous result at
# its own depth is a test case (a leaf); the others are suites or parents of
# parameterised cases. Names join the "# Subtest:" headers above the case.
function judge_kunit(mod,    i, l, ind, d, name, why, ok, cases) {
	delete child
	delete sub_name
	cases = 0
	for (i = 1; i <= nk[mod]; i++) {
		l = ktap[mod, i]
		match(l, /^ */)
		ind = RLENGTH
		l = substr(l, ind + 1)
		if (l ~ /^# Subtest: /) { sub_name[ind] = substr(l, 12); continue }
		if (l !~ /^(not )?ok [0-9]+/) continue
		ok = (l ~ /^ok /)
		name = l
		sub(/^(not )?ok [0-9]+ (- )?/, "", name)
		why = ""
		if (name ~ /# *SKIP/) { why = name; sub(/^.*# *SKIP */, "skipped: ", why); ok = 0 }
		sub(/ *#.*$/, "", name)
		if (!child[ind]) {
			full = ""
			for (d = 0; d <= ind; d += 4)
				if (d in sub_name) full = full sub_name[d] "."
			if (ok) pass("kunit:" full name)
			else fail("kunit:" full name, why == "" ? "not ok" : why)
			cases++
		}
		child[ind] = 0
		for (d = ind - 1; d >= 0; d--) child[d] = 1
		for (d in sub_name) if (d + 0 > ind) delete sub_name[d]
	}
	return cases
}

END {
	if (mode == "demo") {
		if (seen["load"] && load_rc == 0 && !("vm:load" in splat) && !("vm:boot" in splat))
			pass("vm:load-" stack)
		else fail("vm:load-" stack, load_err != "" ? load_err : (("vm:load" in splat) ? "kernel splat: " splat["vm:load"] : "stack did not load"))
		if (seen["demo"] && demo_rc == 0 && !("demo" in splat)) pass("demo:rping")
		else fail("demo:rping", ("demo" in splat) ? "kernel splat: " splat["demo"] : "rc=" (seen["demo"] ? demo_rc : "none (did not finish)"))
	} else {
		why = ""
		if (!seen["boot"]) why = "VM did not boot"
		else if (!seen["load"]) why = "stack load did not finish"
		else if (load_rc != 0) why = "stack did not load: " load_err
		else if ("vm:boot" in splat) why = "kernel splat at boot: " splat["vm:boot"]
		else if ("vm:load" in splat) why = "kernel splat while loading: " splat["vm:load"]
		if (why == "") pass("vm:load-" stack); else fail("vm:load-" stack, why)

		nkm = split(kunit, kmods, " ")
		for (i = 1; i <= nkm; i++) {
			mod = kmods[i]
			if (!(mod in kbegun)) { fail("kunit:" mod, "not run"); continue }
			cases = judge_kunit(mod)
			if (!(mod in krc) && (("kunit:" mod) in splat)) fail("kunit:" mod, "kernel splat: " splat["kunit:" mod] " (then the VM died)")
			else if (!(mod in krc)) fail("kunit:" mod, "did not finish (VM died or hung)")
			else if (krc[mod] == 99) fail("kunit:" mod, "rmmod failed")
			else if (krc[mod] != 0) fail("kunit:" mod, "insmod failed, rc=" krc[mod])
			else if (cases == 0) fail("kunit:" mod, "no KUnit test case ran")
			if ((mod in krc) && (("kunit:" mod) in splat)) fail("kunit:" mod, "kernel splat: " splat["kunit:" mod])
		}

		# The KUnit modules must leave the stack as loaded (checked
		# before the first e2e test).
		if ("kunit" in stack_bad) fail("vm:stack-after-kunit", stack_bad["kunit"])

		ne = split(e2e, tests, " ")
		for (i = 1; i <= ne; i++) {
			t = tests[i]
			nfail_before = nfail
			if (!(t in ebegun)) fail("e2e:" t, "not run")
			else if (("e2e:" t) in splat) fail("e2e:" t, "kernel splat: " splat["e2e:" t] ((t in erc) ? "" : " (then the VM died)"))
			else if (!(t in erc)) fail("e2e:" t, "did not finish (VM died or hung)")
			else if (erc[t] == 124 || erc[t] == 137) fail("e2e:" t, "timed out (rc=" erc[t] ")")
			else if (erc[t] == 77 && !(t in skipwhy)) fail("e2e:" t, "rc=77 (a skip) without a '## SKIP: why' line")
			else if (erc[t] == 77 && stack == "ours") fail("e2e:" t, "skipped on our stack, where every test applies: " skipwhy[t])
			else if (erc[t] == 77) skip("e2e:" t, skipwhy[t])
			else if (erc[t] != 0) fail("e2e:" t, "rc=" erc[t] ((t in failwhy) ? ": " failwhy[t] : ""))
			else if (t in stack_bad) fail("e2e:" t, stack_bad[t])
			else if (!(t in stack_ok)) fail("e2e:" t, "the stack was not checked after it (no STACK-OK)")
			else pass("e2e:" t)
			# A test that failed (or skipped) for its own reason and
			# changed the stack too: both are said.
			if ((t in stack_bad) && (t in erc) && erc[t] != 0) fail("e2e:" t, stack_bad[t])
			if (nfail > nfail_before) show_tail(t)
		}

		if (!seen["unload"]) fail("vm:unload", "not reached")
		else if (unload_rc != 0) fail("vm:unload", "rmmod failed:" unload_err)
		else if ("vm:unload" in splat) fail("vm:unload", "kernel splat: " splat["vm:unload"])
		else pass("vm:unload")

		if (seen["kmemleak_na"]) fail("vm:kmemleak", "no scan: " kmemleak_na)
		else if (!seen["kmemleak_end"]) fail("vm:kmemleak", "scan not reached")
		else if (nleak > 0) fail("vm:kmemleak", nleak " unreferenced object(s):" leak_lines)
		else if ("vm:kmemleak" in splat) fail("vm:kmemleak", "kernel splat: " splat["vm:kmemleak"])
		else pass("vm:kmemleak")
	}

	why = ""
	if (timed_out) why = "VM hung: killed after the host-side timeout"
	else if (!seen["done"]) why = "VM stopped before the end (panic?), uml exit status " uml_rc
	else if ("vm:shutdown" in splat) why = "kernel splat: " splat["vm:shutdown"]
	if (why == "") pass("vm:shutdown"); else fail("vm:shutdown", why)

	if (nsplat > 0) print "kernel splat lines (" nsplat "):" splat_lines
	if (nreport > 0) print "the first splat's report (" nreport " kernel lines):" report_lines
	printf "%d skipped\n", nskip
	printf "%d passed, %d failed\n", npass, nfail
}
