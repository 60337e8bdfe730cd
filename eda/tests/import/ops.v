// Word-level operations and flip-flops for the IR's Yosys front end:
// imported through Yosys' JSON, run on flexpmu's compiled engine, and
// compared with Icarus running this file (eda/tests/import.rs).
module ops (
    input wire clock,
    input wire reset,
    input wire en,
    input wire [15:0] a,
    input wire [15:0] b,
    input wire [2:0] sel,
    input wire [4:0] sh,
    output wire [15:0] sum,
    output wire [15:0] diff,
    output wire [31:0] prod_signed,
    output wire [15:0] negated,
    output wire [15:0] bitwise,
    output wire [7:0] compares,
    output wire [15:0] shifted_left,
    output wire [15:0] shifted_right,
    output wire [15:0] shifted_arith,
    output wire [5:0] reductions,
    output wire [3:0] part,
    output reg [15:0] chosen,
    output wire [15:0] muxed,
    output reg [15:0] plain_q,
    output reg [15:0] enabled_q,
    output reg [15:0] async_q,
    output reg [15:0] sync_q,
    output reg [15:0] sync_enabled_q,
    output reg [7:0] counter,
    output wire [63:0] wide_low,
    output wire [63:0] wide_high,
    output wire [3:0] wide_flags,
    output wire [15:0] quotient,
    output wire [15:0] remainder,
    output wire [15:0] quotient_signed,
    output wire [15:0] remainder_signed,
    output wire [63:0] long_0,
    output wire [63:0] long_1,
    output wire [63:0] long_2,
    output wire [63:0] long_3,
    output wire [3:0] long_flags
);
    // Words wider than the engine's 64 bits, through a submodule's ports.
    wire [149:0] wide_in = {a, b, a ^ b, sum, diff, prod_signed, a[5:0], sh, sel, en, reset, 3'b101};
    wire [149:0] wide_q;
    wide_part part_0 (.clock(clock), .reset(reset), .en(en), .sel(sel), .d(wide_in), .q(wide_q));
    assign wide_low = wide_q[63:0];
    assign wide_high = wide_q[149:86];
    assign wide_flags = {wide_q == wide_in, wide_q != {wide_in[148:0], 1'b0}, |wide_q, &(wide_q | wide_in)};
    wire signed [15:0] sa = a;
    wire signed [15:0] sb = b;
    // Division by divisors small and large, never 0 (Icarus gives x).
    wire [15:0] divisor = (b >> sh[3:0]) | 16'd1;
    wire signed [15:0] divisor_signed = (sb >>> sh[3:0]) | 16'sd1;
    assign quotient = a / divisor;
    assign remainder = a % divisor;
    assign quotient_signed = sa / divisor_signed;
    assign remainder_signed = sa % divisor_signed;
    // Arithmetic on words wider than 64 bits (shifts by amounts past the
    // width too).
    wire [99:0] long_a = {a, b, prod_signed, a ^ b, sum, 4'hb};
    wire [99:0] long_b = {diff, b, a, negated, bitwise, sum[3:0], a};
    wire signed [99:0] long_signed_a = long_a;
    wire signed [99:0] long_signed_b = long_b;
    wire [6:0] long_shift = {sel, sh[3:0]};
    wire [99:0] long_left = long_a << long_shift;
    wire [99:0] long_right = long_a >> long_shift;
    wire [99:0] long_arith = long_signed_a >>> long_shift;
    wire [99:0] long_sum = long_a + long_b;
    wire [99:0] long_diff = long_a - long_b;
    wire [99:0] long_product = long_a * long_b;
    assign long_0 = long_left[63:0] ^ long_right[99:36];
    assign long_1 = long_arith[99:36] ^ long_sum[63:0];
    assign long_2 = long_diff[99:36] ^ long_product[63:0];
    assign long_3 = long_product[99:36] ^ long_sum[99:36];
    assign long_flags = {long_a < long_b, long_a >= long_b, long_signed_a > long_signed_b,
                         long_a <= (long_a ^ {96'h0, sel, 1'b1})};
    assign sum = a + b;
    assign diff = a - b;
    assign prod_signed = sa * sb;
    assign negated = -a;
    assign bitwise = (a & b) | (~a ^ b) ^ (a ~^ {b[7:0], b[15:8]});
    assign compares = {sa < sb, sa <= sb, sa > sb, sa >= sb, a < b, a == b, a != b, a >= 16'h8000};
    assign shifted_left = a << sh;
    assign shifted_right = a >> sh;
    assign shifted_arith = sa >>> sh;
    assign reductions = {&a, |a, ^a, ~^a, !a, a && b};
    assign part = a[sel +: 4];
    assign muxed = en ? a : b;
    always @(*) begin
        case (sel)
            3'd0: chosen = a;
            3'd1: chosen = b;
            3'd2: chosen = a + 16'd1;
            3'd5: chosen = ~b;
            default: chosen = 16'h1234;
        endcase
    end
    initial plain_q = 16'h0042;
    always @(posedge clock) plain_q <= a ^ plain_q;
    initial enabled_q = 0;
    always @(posedge clock) if (en) enabled_q <= b;
    initial async_q = 16'h00a5;
    always @(posedge clock or posedge reset)
        if (reset) async_q <= 16'h00a5;
        else async_q <= async_q + a;
    initial sync_q = 16'h5a00;
    always @(posedge clock)
        if (reset) sync_q <= 16'h5a00;
        else sync_q <= sync_q ^ b;
    initial sync_enabled_q = 0;
    always @(posedge clock)
        if (reset) sync_enabled_q <= 0;
        else if (en) sync_enabled_q <= a - b;
    initial counter = 0;
    always @(posedge clock)
        if (en) begin
            if (reset) counter <= 0;
            else counter <= counter + 1;
        end
endmodule

module wide_part (
    input wire clock,
    input wire reset,
    input wire en,
    input wire [2:0] sel,
    input wire [149:0] d,
    output reg [149:0] q
);
    reg [149:0] chosen;
    always @(*) begin
        case (sel)
            3'd0: chosen = d;
            3'd1: chosen = ~d;
            3'd2: chosen = d ^ q;
            3'd3: chosen = {d[74:0], d[149:75]};
            default: chosen = en ? q & d : q | d;
        endcase
    end
    initial q = {{74{2'b10}}, 2'b01};
    always @(posedge clock or posedge reset)
        if (reset) q <= {{74{2'b10}}, 2'b01};
        else if (en) q <= chosen;
endmodule
