"""Runs the cocotb tests of an exported PMU on a simulator.

    python run.py icarus|ghdl EXPORT_DIR BUILD_DIR [TOP]

EXPORT_DIR is a `flexpmu export` folder (generated_vhdl/); the top
(default `flexpmu_pmu`) and every module it instantiates are taken from
it, in Verilog for Icarus and in VHDL (2008) for GHDL. Exits non-zero if a
test fails; bad input is refused with one line on stderr and exit code 2,
before anything is built.
"""

import os
import re
import sys
from pathlib import Path

USAGE = "python run.py icarus|ghdl EXPORT_DIR BUILD_DIR [TOP]"
INSTALL = (
    "python3 -m venv target/cocotb-venv && "
    "target/cocotb-venv/bin/pip install cocotb==2.1.0"
)
EXPORT = "a `flexpmu export` folder such as generated_vhdl/"
INSTANCE = {
    "icarus": (".v", re.compile(r"^\s*(flexpmu_\w+)\s+\w+\s*\(", re.M)),
    "ghdl": (".vhd", re.compile(r"^\s*component\s+(flexpmu_\w+)", re.M)),
}


def refuse(message):
    """Bad input: one line on stderr, exit code 2."""
    print(f"run.py: error: {message}", file=sys.stderr)
    sys.exit(2)


def tops(folder, simulator):
    """The `flexpmu_*` modules in `folder` that none of its files
    instantiates, and the default top, the first few, as a phrase."""
    extension, instance = INSTANCE[simulator]
    files = sorted(folder.glob(f"flexpmu_*{extension}"))
    used = set()
    for path in files:
        try:
            used.update(instance.findall(path.read_text(errors="replace")))
        except OSError:
            pass
    names = [p.stem for p in files if p.stem not in used or p.stem == "flexpmu_pmu"]
    if not names:
        return f"no flexpmu_*{extension} tops there"
    more = ", …" if len(names) > 4 else ""
    return "tops there: " + ", ".join(names[:4]) + more


def design_files(folder, top, simulator):
    """The top's file and those of every module under it, leaves first."""
    extension, instance = INSTANCE[simulator]
    order, todo = [], [(top, None)]
    while todo:
        name, parent = todo.pop()
        if name in order:
            continue
        order.append(name)
        path = folder / f"{name}{extension}"
        if not path.exists() and parent is None:
            refuse(
                f"{path}: no such file; expected the top `{top}` as {path.name} "
                f"for {simulator} ({tops(folder, simulator)})"
            )
        if not path.exists():
            refuse(
                f"{path}: no such file; expected module `{name}`, "
                f"which `{parent}` instantiates"
            )
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as e:
            refuse(f"{path}: cannot read: {e.strerror or e}")
        except UnicodeDecodeError as e:
            refuse(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})")
        todo.extend((module, name) for module in instance.findall(text))
    return [(folder / f"{name}{extension}").resolve() for name in reversed(order)]


def non_negative_integer(text):
    """`text` is what int() reads as 0 or more, as the tests read it."""
    try:
        return int(text) >= 0
    except ValueError:
        return False


def main():
    args = sys.argv[1:]
    if args in (["-h"], ["--help"]):
        print(__doc__)
        return
    if len(args) not in (3, 4):
        refuse(f"{len(args)} argument(s) given, expected 3 or 4; usage: {USAGE}")
    if args[0] not in INSTANCE:
        refuse(f"unknown simulator {args[0]!r}; usage: {USAGE}")
    simulator, folder, build = args[0], Path(args[1]), Path(args[2])
    top = args[3] if len(args) == 4 else "flexpmu_pmu"
    # test_flexpmu_pmu.py seeds random.Random with int(FLEXPMU_SEED).
    seed = os.environ.get("FLEXPMU_SEED")
    if seed is not None and not non_negative_integer(seed):
        refuse(f"FLEXPMU_SEED={seed!r}: expected an integer 0 or more (the seed)")
    if not re.fullmatch(r"\w+", top):
        refuse(f"TOP {top!r}: expected a module name such as flexpmu_pmu")
    if not folder.exists():
        refuse(f"{folder}: no such folder; expected {EXPORT}")
    if not folder.is_dir():
        refuse(f"{folder}: not a folder; expected {EXPORT}")
    # The build folder, or the nearest part of it that exists, is a folder.
    existing = next(p for p in (build, *build.parents) if p.exists())
    if existing == build and not build.is_dir():
        refuse(f"{build}: not a folder; expected a build folder (made if missing)")
    if not existing.is_dir():
        refuse(f"{existing}: not a folder, so the build folder {build} cannot be made")
    sources = design_files(folder, top, simulator)
    try:
        from cocotb_tools.runner import get_runner
    except ImportError as e:
        refuse(f"cocotb not found for {sys.executable} ({e}); install it: {INSTALL}")
    build = build.resolve()
    runner = get_runner(simulator)
    # GHDL runs the test in the test's folder: its library is named.
    options = ["--std=08", f"--workdir={build}"] if simulator == "ghdl" else []
    runner.build(
        sources=sources,
        hdl_toplevel=top,
        build_dir=build,
        build_args=options,
        timescale=("1ns", "1ps"),
        always=True,
    )
    results = runner.test(
        hdl_toplevel=top,
        test_module="test_flexpmu_pmu",
        test_dir=Path(__file__).parent,
        build_dir=build,
        test_args=options,
        results_xml=build / "results.xml",
    )
    # The results file: a failure or an error fails the run.
    text = Path(results).read_text()
    if "<failure" in text or "<error" in text:
        sys.exit(f"{simulator}: cocotb tests failed (see {results})")
    print(f"{simulator}: cocotb tests passed")


if __name__ == "__main__":
    main()
