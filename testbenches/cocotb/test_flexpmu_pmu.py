"""cocotb tests of the exported PMU (`flexpmu_pmu`: 16 counters of 32 bits,
32-bit toggle channels), in Verilog on Icarus or in VHDL on GHDL.

The design is checked cycle by cycle against a reference model written
here from the PMU's specification (not from flexpmu's Rust models):
each counter is a RESET / COUNTING / IDLE state machine whose count rises
by one in a cycle its channel's input differs from the cycle before, while
it is COUNTING; a command (1 CNT, 2 RST, 3 IDL) goes to the counter at
`address`; `reset` is an RST of every counter; `monitor_out` shows the
count at `address` in the same cycle.
"""

import os
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, Timer

COUNTERS = 16
WIDTH = 32
NOP, CNT, RST, IDL = 0, 1, 2, 3
RESET_STATE, COUNTING, IDLE = "RESET", "COUNTING", "IDLE"


class PmuReference:
    """The PMU as its specification states it, one clock edge a step."""

    def __init__(self, counters=COUNTERS, width=WIDTH):
        self.mask = (1 << width) - 1
        self.states = [RESET_STATE] * counters
        self.counts = [0] * counters
        self.previous = [0] * counters

    def monitor_out(self, address):
        return self.counts[address] if address < len(self.counts) else 0

    def step(self, reset, address, command, monitor_in):
        for k in range(len(self.counts)):
            if reset:
                cmd = RST
            elif address == k:
                cmd = command
            else:
                cmd = NOP
            toggled = (monitor_in[k] & self.mask) != self.previous[k]
            self.previous[k] = monitor_in[k] & self.mask
            if cmd == RST:
                self.counts[k] = 0
            elif self.states[k] == COUNTING and toggled:
                self.counts[k] = (self.counts[k] + 1) & self.mask
            if cmd == CNT:
                self.states[k] = COUNTING
            elif cmd == RST:
                self.states[k] = RESET_STATE
            elif cmd == IDL:
                self.states[k] = IDLE


def drive(dut, reset, address, command, monitor_in):
    dut.reset.value = int(reset)
    dut.address.value = address
    dut.command.value = command
    for k, value in enumerate(monitor_in):
        getattr(dut, f"monitor_in_{k}").value = value


async def run_against_model(dut, cycles, seed):
    """`cycles` random cycles (commands, resets, input changes) with
    `monitor_out` compared with the model in every one."""
    rng = random.Random(seed)
    cocotb.start_soon(Clock(dut.clock, 10, unit="ns").start())
    model = PmuReference()
    monitor_in = [0] * COUNTERS
    # Two cycles of reset first: the registers' power-up values are not
    # the specification's business.
    for _ in range(2):
        await FallingEdge(dut.clock)
        drive(dut, True, 0, NOP, monitor_in)
        model.step(True, 0, NOP, monitor_in)
    checked = 0
    for cycle in range(cycles):
        await FallingEdge(dut.clock)
        reset = rng.random() < 0.005
        address = rng.randrange(COUNTERS)
        command = rng.choice([NOP, NOP, NOP, CNT, CNT, RST, IDL])
        for k in range(COUNTERS):
            if rng.random() < 0.3:
                monitor_in[k] = rng.getrandbits(WIDTH)
        drive(dut, reset, address, command, monitor_in)
        await Timer(1, unit="ns")
        expected = model.monitor_out(address)
        seen = dut.monitor_out.value.to_unsigned()
        assert seen == expected, (
            f"cycle {cycle}: monitor_out of counter {address} is {seen}, "
            f"the model's {expected} (state {model.states[address]})"
        )
        checked += 1
        model.step(reset, address, command, monitor_in)
    dut._log.info("%d cycles equal to the reference model", checked)
    return model


@cocotb.test()
async def counts_match_the_reference_model(dut):
    """Random commands and inputs: every cycle's monitor_out is the
    model's."""
    seed = int(os.environ.get("FLEXPMU_SEED", "1"))
    model = await run_against_model(dut, 3000, seed)
    # The run exercised what it should: counters that counted.
    assert any(c > 0 for c in model.counts), model.counts


@cocotb.test()
async def a_counter_counts_changes_only_while_counting(dut):
    """The thesis' figure 3.1 in small: CNT, three changes, IDL holds the
    count, RST clears it."""
    cocotb.start_soon(Clock(dut.clock, 10, unit="ns").start())
    monitor_in = [0] * COUNTERS

    async def cycle(reset=False, address=0, command=NOP):
        await FallingEdge(dut.clock)
        drive(dut, reset, address, command, monitor_in)
        await Timer(1, unit="ns")
        return dut.monitor_out.value.to_unsigned()

    await cycle(reset=True)
    await cycle(address=5, command=CNT)
    for value in (1, 2, 2, 3):  # three changes, one cycle without
        monitor_in[5] = value
        await cycle(address=5)
    assert await cycle(address=5, command=IDL) == 3
    monitor_in[5] = 7
    await cycle(address=5)
    assert await cycle(address=5) == 3, "an IDLE counter does not count"
    await cycle(address=5, command=RST)
    assert await cycle(address=5) == 0
