//! `fpu_single` (`FPU/fpu_top_32_new.vhd`): the FSM that grabs the
//! operands, enables one unit, waits a fixed number of cycles and picks
//! the result (process `p_FPU_FSM`, lines 155-455), with the units it
//! instantiates (lines 100-152), clocked together edge by edge.

use super::add::Add;
use super::conv::{Conv, ConvMode};
use super::exceptions::{Exceptions, ExceptionsIn};
use super::fma::Fma;
use super::mul::Mul;
use super::round::Round;
use super::set::Set;
use super::sub::Sub;
use super::{FpuIn, FpuOp, FpuOut, OpReg};

/// `fpu_state_type` (line 28).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum State {
    #[default]
    Idle,
    Grab,
    Set,
    Work,
    Done,
}

/// `fpu_work_type` (line 30); `RCP` is not modelled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Workload {
    #[default]
    Add,
    Sub,
    Mul,
    Fma,
    Conv,
    Comp,
}

/// The registers of `p_FPU_FSM`. Not in its reset list (lines 158-200),
/// hence kept from one operation to the next: `workload`,
/// `fpu_subop_reg`, `S32_i`, `set_cond_i`, `set_enable`, `convmode`,
/// `exponent_round`, `mantissa_round`, `round_sign` and `first_reset`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Regs {
    state: State,
    workload: Workload,
    fpu_op_reg: OpReg,
    fpu_subop_reg: u8,
    opa_reg: u32,
    opb_reg: u32,
    opc_reg: u32,
    opa_neg_reg: u32,
    opb_neg_reg: u32,
    opc_neg_reg: u32,
    opa_true_reg: u32,
    opb_true_reg: u32,
    opc_true_reg: u32,
    rmode_reg: u8,
    src1_neg_i: bool,
    src2_neg_i: bool,
    src3_neg_i: bool,
    set_cond_i: u8,
    add_enable: bool,
    sub_enable: bool,
    mul_enable: bool,
    fma_enable: bool,
    conv_enable: bool,
    set_enable: bool,
    convmode: ConvMode,
    s32_i: bool,
    op_enable: bool,
    count_cycles: u32,
    count_ready: u32,
    done_0: bool,
    done_1: bool,
    set_0: bool,
    /// `rst_add`, `rst_sub`, `rst_mul`, `rst_fma`, `rst_conv`,
    /// `rst_round`, `rst_except` (and `rst_rcp`): one register each,
    /// always written together.
    rst_units: bool,
    first_reset: bool,
    exponent_round: u32,
    mantissa_round: u32,
    round_sign: bool,
    out_fp_i: u32,
    finished: bool,
    flags: [bool; 5],
}

/// The units (lines 100-152).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Units {
    add: Add,
    sub: Sub,
    mul: Mul,
    fma: Fma,
    round: Round,
    except: Exceptions,
    conv: Conv,
    set: Set,
}

/// `fpu_single` at the register level: its state persists from one
/// operation to the next as in the hardware.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FpuSingle {
    r: Regs,
    u: Units,
}

impl Default for FpuSingle {
    fn default() -> Self {
        FpuSingle::new()
    }
}

impl FpuSingle {
    /// Power-up (never-reset registers at 0, `first_reset` at 'U', which
    /// tests as not '0'), then the global `rst` (lines 158-200) and one
    /// edge with `enable` low.
    pub fn new() -> FpuSingle {
        let mut f = FpuSingle {
            r: Regs {
                first_reset: true,
                ..Regs::default()
            },
            u: Units::default(),
        };
        f.global_reset();
        f.edge(false, &FpuIn::default());
        f
    }

    /// `rst` high (lines 158-200): the FSM's reset list, every unit's
    /// reset line and `fpu_set`'s `rst`.
    fn global_reset(&mut self) {
        let r = &mut self.r;
        *r = Regs {
            workload: r.workload,
            fpu_subop_reg: r.fpu_subop_reg,
            s32_i: r.s32_i,
            set_cond_i: r.set_cond_i,
            set_enable: r.set_enable,
            convmode: r.convmode,
            exponent_round: r.exponent_round,
            mantissa_round: r.mantissa_round,
            round_sign: r.round_sign,
            first_reset: r.first_reset,
            rst_units: true,
            ..Regs::default()
        };
        self.reset_units();
        self.u.set = Set::default();
    }

    fn reset_units(&mut self) {
        let u = &mut self.u;
        u.add.reset();
        u.sub.reset();
        u.mul.reset();
        u.fma.reset();
        u.round.reset();
        u.except.reset();
        u.conv.reset();
    }

    /// One operation with `pipeline_execute.vhd`'s handshake: `enable`
    /// high until `finished` is seen at an edge, the result taken at the
    /// next edge (ALU_DONE, lines 440-470, with `stall_in` low), then
    /// `enable` low for `gap` edges (at least 1 in the pipeline).
    pub fn execute_with_gap(&mut self, i: &FpuIn, gap: u32) -> FpuOut {
        let mut edges = 0;
        loop {
            let seen = self.r.finished;
            self.edge(true, i);
            edges += 1;
            if seen || edges > 1000 {
                break;
            }
        }
        let out = FpuOut {
            out_fp: self.r.out_fp_i,
            underflow: self.r.flags[0],
            overflow: self.r.flags[1],
            inexact: self.r.flags[2],
            exception: self.r.flags[3],
            invalid: self.r.flags[4],
        };
        self.edge(true, i);
        for _ in 0..gap {
            self.edge(false, i);
        }
        out
    }

    /// [`FpuSingle::execute_with_gap`] with 2 edges of `enable` low.
    pub fn execute(&mut self, i: &FpuIn) -> FpuOut {
        self.execute_with_gap(i, 2)
    }

    /// One rising edge of `clk` with `rst` low and `stall_in` low: every
    /// register computed from the values before the edge.
    fn edge(&mut self, enable: bool, i: &FpuIn) {
        let o = self.r;
        let mut n = o;
        let mut u = self.u;
        // The units, clocked by the FSM's registers (lines 100-152).
        if !o.rst_units {
            if o.add_enable {
                u.add.clock(o.opa_true_reg, o.opb_true_reg);
            }
            if o.sub_enable {
                u.sub.clock(o.opa_true_reg, o.opb_true_reg);
            }
            if o.mul_enable {
                u.mul.clock(o.opa_true_reg, o.opb_true_reg);
            }
            if o.fma_enable {
                u.fma.clock(o.opa_true_reg, o.opb_true_reg, o.opc_true_reg);
            }
            if o.op_enable {
                u.round.clock(
                    o.rmode_reg,
                    o.round_sign,
                    o.mantissa_round,
                    o.exponent_round,
                );
                u.except.clock(&ExceptionsIn {
                    rmode: o.rmode_reg,
                    opa: o.opa_true_reg,
                    opb: o.opb_true_reg,
                    opc: o.opc_true_reg,
                    in_except: self.u.round.round_out,
                    exponent_in: self.u.round.exponent_final,
                    mantissa_in: o.mantissa_round & 3,
                    fpu_op: o.fpu_op_reg,
                });
            }
            if o.conv_enable {
                u.conv.clock(o.convmode, o.opa_true_reg);
            }
        }
        if o.set_enable {
            u.set
                .clock(o.opa_true_reg, o.opb_true_reg, o.set_cond_i, i.abs_en);
        }
        if enable {
            n.rst_units = false;
            n.first_reset = false;
            match o.state {
                State::Idle => {
                    // Lines 213-257.
                    n = Regs {
                        state: if enable { State::Grab } else { State::Idle },
                        workload: o.workload,
                        fpu_subop_reg: o.fpu_subop_reg,
                        set_cond_i: o.set_cond_i,
                        convmode: o.convmode,
                        exponent_round: o.exponent_round,
                        mantissa_round: o.mantissa_round,
                        round_sign: o.round_sign,
                        flags: o.flags,
                        rst_units: !o.first_reset,
                        first_reset: true,
                        ..Regs::default()
                    };
                }
                State::Grab => {
                    // Lines 258-276.
                    n.fpu_op_reg = i.fpu_opcode.into();
                    n.fpu_subop_reg = i.fpu_subopcode & 7;
                    n.opa_reg = i.src1;
                    n.opb_reg = i.src2;
                    n.opa_neg_reg = i.src1 ^ 0x8000_0000;
                    n.opb_neg_reg = i.src2 ^ 0x8000_0000;
                    n.src1_neg_i = i.src1_neg;
                    n.src2_neg_i = i.src2_neg;
                    if i.fpu_opcode == FpuOp::Fmad {
                        n.opc_reg = i.src3;
                        n.opc_neg_reg = i.src3 ^ 0x8000_0000;
                        n.src3_neg_i = i.src3_neg;
                    }
                    n.rmode_reg = i.rmode & 3;
                    n.s32_i = i.s32;
                    n.set_cond_i = i.set_cond & 7;
                    n.state = State::Set;
                }
                State::Set => set_state(&o, &mut n, i.abs_en),
                State::Work => {
                    // Lines 353-384.
                    if o.count_ready < o.count_cycles {
                        n.count_ready = (o.count_ready + 1) & 0x7f;
                        let (e, m, s) = match o.workload {
                            Workload::Add => {
                                (self.u.add.exponent_2, self.u.add.sum_3, self.u.add.sign)
                            }
                            Workload::Sub => {
                                (self.u.sub.exponent_2, self.u.sub.diff_2, self.u.sub.sign)
                            }
                            Workload::Mul => {
                                (self.u.mul.exponent_5, self.u.mul.product_7, self.u.mul.sign)
                            }
                            Workload::Fma => {
                                (self.u.fma.exponent, self.u.fma.mantissa, self.u.fma.sign)
                            }
                            Workload::Conv | Workload::Comp => {
                                (o.exponent_round, o.mantissa_round, o.round_sign)
                            }
                        };
                        n.exponent_round = e;
                        n.mantissa_round = m;
                        n.round_sign = s;
                    } else {
                        n.state = State::Done;
                    }
                }
                State::Done => {
                    // Lines 385-410.
                    let x = &self.u.except;
                    n.done_0 = true;
                    n.done_1 = o.done_0;
                    n.finished = o.done_0;
                    n.flags = [x.underflow, x.overflow, x.inexact, x.exception, x.invalid];
                    let arith = matches!(o.fpu_op_reg, OpReg::Fadd | OpReg::Fmul | OpReg::Fmad);
                    n.out_fp_i = if arith && x.ex_enable {
                        x.out_fp
                    } else if arith {
                        self.u.round.round_out
                    } else if o.fpu_op_reg == OpReg::Fset {
                        self.u.set.result_out
                    } else if matches!(o.convmode, ConvMode::F2S | ConvMode::F2U) {
                        self.u.conv.int_out
                    } else {
                        self.u.conv.float_out
                    };
                    n.first_reset = false;
                    if o.done_1 {
                        n.state = State::Idle;
                    }
                }
            }
        } else {
            // Lines 411-453.
            n = Regs {
                workload: o.workload,
                fpu_subop_reg: o.fpu_subop_reg,
                set_cond_i: o.set_cond_i,
                set_enable: o.set_enable,
                convmode: o.convmode,
                exponent_round: o.exponent_round,
                mantissa_round: o.mantissa_round,
                round_sign: o.round_sign,
                flags: o.flags,
                rst_units: o.rst_units || !o.first_reset,
                first_reset: true,
                ..Regs::default()
            };
        }
        self.r = n;
        self.u = u;
        // The units' asynchronous resets follow their reset registers.
        if n.rst_units {
            self.reset_units();
        }
    }
}

/// The SET state (lines 277-352): operands negated, a unit chosen from
/// the operands before this edge (the first of its two cycles still sees
/// the operands the IDLE state cleared, so FADD first enables the adder
/// and, one cycle later, also the subtractor).
fn set_state(o: &Regs, n: &mut Regs, abs_en: bool) {
    n.opa_true_reg = if o.src1_neg_i {
        o.opa_neg_reg
    } else {
        o.opa_reg
    };
    n.opb_true_reg = if o.src2_neg_i {
        o.opb_neg_reg
    } else {
        o.opb_reg
    };
    n.opc_true_reg = if o.src3_neg_i {
        o.opc_neg_reg
    } else {
        o.opc_reg
    };
    n.op_enable = true;
    let negative = (o.opa_true_reg | o.opb_true_reg) >> 31 != 0;
    match o.fpu_op_reg {
        OpReg::Fadd if !negative => {
            n.workload = Workload::Add;
            n.add_enable = true;
            n.count_cycles = 15;
        }
        OpReg::Fadd => {
            n.workload = Workload::Sub;
            n.sub_enable = true;
            n.count_cycles = 16;
        }
        OpReg::Fmul => {
            n.workload = Workload::Mul;
            n.mul_enable = true;
            n.count_cycles = 16;
        }
        OpReg::Fmad => {
            n.workload = Workload::Fma;
            n.fma_enable = true;
            n.count_cycles = 20;
        }
        OpReg::Conv => {
            n.op_enable = false;
            n.conv_enable = true;
            n.workload = Workload::Conv;
            n.count_cycles = 3;
            match o.fpu_subop_reg {
                4 => {
                    n.convmode = if o.s32_i {
                        ConvMode::F2S
                    } else {
                        ConvMode::F2U
                    }
                }
                2 => {
                    n.convmode = if o.s32_i {
                        ConvMode::S2F
                    } else {
                        ConvMode::U2F
                    }
                }
                7 => n.convmode = ConvMode::Neg,
                6 => {
                    n.convmode = if abs_en {
                        ConvMode::Abso
                    } else {
                        ConvMode::Trsfr
                    }
                }
                _ => {}
            }
        }
        OpReg::Fset => {
            n.op_enable = false;
            n.workload = Workload::Comp;
            n.set_enable = true;
            n.count_cycles = 5;
        }
        OpReg::Unknown => {}
    }
    n.set_0 = true;
    if o.set_0 {
        n.state = State::Work;
    }
}
