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
    output reg [7:0] counter
);
    wire signed [15:0] sa = a;
    wire signed [15:0] sb = b;
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
