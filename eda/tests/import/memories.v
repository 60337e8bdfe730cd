// Memories for the IR's Yosys front end (`memory -nomap` makes each a
// `$mem_v2`): imported, run on flexpmu's compiled engine, and compared
// with Icarus and Verilator running this file (eda/tests/import.rs).
module memories (
    input wire clock,
    input wire reset,
    input wire [3:0] table_read,
    input wire [3:0] table_write,
    input wire [11:0] table_data,
    input wire [1:0] table_enable,
    input wire [4:0] buffer_read,
    input wire [4:0] buffer_write,
    input wire [7:0] buffer_data,
    input wire buffer_write_enable,
    input wire buffer_read_enable,
    input wire [2:0] shared_a,
    input wire [2:0] shared_b,
    input wire [2:0] shared_read,
    input wire [15:0] shared_data_a,
    input wire [15:0] shared_data_b,
    input wire shared_enable_a,
    input wire shared_enable_b,
    input wire [4:0] odd_read,
    input wire [4:0] odd_write,
    input wire [5:0] odd_data,
    input wire odd_enable,
    output wire [11:0] table_word,
    output reg [7:0] buffer_word,
    output reg [7:0] buffer_through,
    output wire [15:0] shared_word,
    output wire [5:0] odd_word,
    input wire [63:0] wide_low,
    input wire [35:0] wide_high,
    input wire [2:0] wide_address,
    input wire [1:0] wide_enable,
    output wire [63:0] wide_word_low,
    output wire [35:0] wide_word_high
);
    // 16 words with power-up contents, read asynchronously, written a
    // field at a time (two enables).
    reg [11:0] table_words [0:15];
    integer i;
    initial begin
        for (i = 0; i < 16; i = i + 1) table_words[i] = 12'h111 * i;
    end
    assign table_word = table_words[table_read];
    always @(posedge clock) begin
        if (table_enable[0]) table_words[table_write][5:0] <= table_data[5:0];
        if (table_enable[1]) table_words[table_write][11:6] <= table_data[11:6];
    end

    // 32 words read through a register with an enable and a synchronous
    // reset; and a copy of them read through a register that sees the
    // word being written (a read port transparent to the write port).
    reg [7:0] buffer_words [0:31];
    reg [7:0] mirror_words [0:31];
    initial begin
        for (i = 0; i < 32; i = i + 1) buffer_words[i] = 8'h0;
        for (i = 0; i < 32; i = i + 1) mirror_words[i] = 8'h0;
        buffer_word = 8'h0;
        buffer_through = 8'h0;
    end
    always @(posedge clock) begin
        if (buffer_write_enable) buffer_words[buffer_write] <= buffer_data;
        if (reset) buffer_word <= 8'h5a;
        else if (buffer_read_enable) buffer_word <= buffer_words[buffer_read];
    end
    always @(posedge clock) begin
        if (buffer_write_enable) mirror_words[buffer_write] <= buffer_data;
        if (buffer_write_enable && buffer_write == buffer_read) buffer_through <= buffer_data;
        else buffer_through <= mirror_words[buffer_read];
    end

    // Two write ports on one memory, the second writing the low byte
    // only: where both write a bit, the later one wins.
    reg [15:0] shared_words [0:7];
    initial begin
        for (i = 0; i < 8; i = i + 1) shared_words[i] = 16'h0;
    end
    always @(posedge clock) begin
        if (shared_enable_a) shared_words[shared_a] <= shared_data_a;
        if (shared_enable_b) shared_words[shared_b][7:0] <= shared_data_b[7:0];
    end
    assign shared_word = shared_words[shared_read];

    // 20 words (not a power of two): reads past the end guarded.
    reg [5:0] odd_words [0:19];
    initial begin
        for (i = 0; i < 20; i = i + 1) odd_words[i] = i[5:0];
    end
    always @(posedge clock) begin
        if (odd_enable && odd_write < 5'd20) odd_words[odd_write] <= odd_data;
    end
    assign odd_word = odd_read < 5'd20 ? odd_words[odd_read] : 6'h0;

    // 100-bit words (split into words of 64 and 36 bits), the high part
    // written apart, read through a register.
    reg [99:0] wide_words [0:7];
    reg [99:0] wide_word;
    initial begin
        for (i = 0; i < 8; i = i + 1) wide_words[i] = {36'h0, 64'h0123456789abcdef} * i;
        wide_word = 100'h0;
    end
    always @(posedge clock) begin
        if (wide_enable[0]) wide_words[wide_address][63:0] <= wide_low;
        if (wide_enable[1]) wide_words[wide_address][99:64] <= wide_high;
        wide_word <= wide_words[wide_address ^ 3'h5];
    end
    assign wide_word_low = wide_word[63:0];
    assign wide_word_high = wide_word[99:64];
endmodule
