"""Runs the cocotb tests of an exported PMU on a simulator.

    python run.py icarus|ghdl EXPORT_DIR BUILD_DIR [TOP]

EXPORT_DIR is a `flexpmu export` folder (generated_vhdl/); the top
(default `flexpmu_pmu`) and every module it instantiates are taken from
it, in Verilog for Icarus and in VHDL (2008) for GHDL. Exits non-zero if a
test fails.
"""

import re
import sys
from pathlib import Path

from cocotb_tools.runner import get_runner

INSTANCE = {
    "icarus": (".v", re.compile(r"^\s*(flexpmu_\w+)\s+\w+\s*\(", re.M)),
    "ghdl": (".vhd", re.compile(r"^\s*component\s+(flexpmu_\w+)", re.M)),
}


def design_files(folder, top, simulator):
    """The top's file and those of every module under it, leaves first."""
    extension, instance = INSTANCE[simulator]
    order, todo = [], [top]
    while todo:
        name = todo.pop()
        if name in order:
            continue
        order.append(name)
        text = (folder / f"{name}{extension}").read_text()
        todo.extend(instance.findall(text))
    return [folder / f"{name}{extension}" for name in reversed(order)]


def main():
    if len(sys.argv) not in (4, 5) or sys.argv[1] not in INSTANCE:
        sys.exit(__doc__)
    simulator = sys.argv[1]
    folder, build = Path(sys.argv[2]).resolve(), Path(sys.argv[3]).resolve()
    top = sys.argv[4] if len(sys.argv) == 5 else "flexpmu_pmu"
    runner = get_runner(simulator)
    # GHDL runs the test in the test's folder: its library is named.
    options = ["--std=08", f"--workdir={build}"] if simulator == "ghdl" else []
    runner.build(
        sources=design_files(folder, top, simulator),
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
