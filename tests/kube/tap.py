"""tap.py - the checks of selftest.py and test_cli.py: one line each,
"ok - what" or "FAIL - what: detail", and their counts for the end."""
import sys

results = {"ok": 0, "fail": 0}


def check(what, cond, detail=""):
    """Counts and prints one check; cond, for the caller to go on by."""
    if cond:
        results["ok"] += 1
        print("ok - " + what)
    else:
        results["fail"] += 1
        print("FAIL - %s%s" % (what, ": " + str(detail)[:2000]
                               if detail != "" else ""))
    sys.stdout.flush()
    return cond
