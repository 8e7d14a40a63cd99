#!/usr/bin/python3
"""Solve-only timing of libsolv through python3-solv (Debian), driven by deppy-compare.

usage: libsolv_solve.py DIR REPEATS
DIR holds available.susetags (the testtags text with rpm rich-dependency syntax, read with
repo.add_susetags: testtags is the susetags syntax) and roots.txt (one package name per line, one install job each).
Prints one JSON line: status, selected (name-version), phases in ms.
"load" = parse + createwhatprovides, "solve" = Solver.solve plus, when unsatisfiable, the
problems rendered to text (libsolv's explanation), "total" = both (the headline).
"""
import json
import sys
import time

import solv


def main():
    d, repeats = sys.argv[1], int(sys.argv[2])
    with open(d + "/roots.txt") as f:
        roots = f.read().split()
    phases = {"load": [], "solve": [], "total": []}
    status, selected, note = "error", [], ""
    for _ in range(repeats):
        t0 = time.perf_counter()
        pool = solv.Pool()
        pool.setdisttype(solv.Pool.DISTTYPE_RPM)
        pool.setarch("x86_64")
        pool.installed = pool.add_repo("system")
        repo = pool.add_repo("available")
        fp = solv.xfopen(d + "/available.susetags")
        if not repo.add_susetags(fp, 0, None):
            raise SystemExit("cannot read " + d + "/available.susetags: " + pool.errstr)
        fp.close()
        pool.addfileprovides()
        pool.createwhatprovides()
        jobs = [pool.Job(solv.Job.SOLVER_INSTALL | solv.Job.SOLVER_SOLVABLE_NAME, pool.str2id(n))
                for n in roots]
        solver = pool.Solver()
        t1 = time.perf_counter()
        problems = solver.solve(jobs)
        if problems:
            text = "\n".join(str(p) for p in problems)
        else:
            sel = [s.name + "-" + s.evr for s in solver.transaction().newsolvables()]
        t2 = time.perf_counter()
        phases["load"].append((t1 - t0) * 1000.0)
        phases["solve"].append((t2 - t1) * 1000.0)
        phases["total"].append((t2 - t0) * 1000.0)
        if problems:
            status, selected, note = "unsat", [], text.splitlines()[0] if text else ""
        else:
            status, selected = "sat", sel
        del solver, pool
    print(json.dumps({"status": status, "selected_names": selected, "phases": phases, "note": note}))


if __name__ == "__main__":
    main()
