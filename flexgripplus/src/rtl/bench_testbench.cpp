// flexpmu bench: drives FlexGripPlus' GPGPU (the imported netlist as Yosys writes
// it in Verilog) as flexpmu's co-simulation testbench and harness do.
#include "Vgpgpu_ml605_top_level.h"
#include "verilated.h"
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
    // argv[1]: the launch: the cycle bound, then the configuration words
    // (ten, then the parameters), one decimal number a line.
    FILE* f = std::fopen(argc > 1 ? argv[1] : "launch.txt", "r");
    if (!f) { std::fprintf(stderr, "no launch file\n"); return 2; }
    unsigned long long max_cycles = 0;
    if (std::fscanf(f, "%llu", &max_cycles) != 1) return 2;
    std::vector<unsigned> words;
    unsigned w;
    while (std::fscanf(f, "%u", &w) == 1) words.push_back(w);
    std::fclose(f);
    const long writes = (long)words.size();
    const long first_write = 8, start = first_write + writes + 1;
    Vgpgpu_ml605_top_level* d = new Vgpgpu_ml605_top_level;
    auto inputs = [&](long p) {
        d->host_reset = p < 7;
        long k = p - first_write;
        if (k >= 0 && k < writes) {
            d->gpgpu_config_cntrl_en_in = 1;
            d->gpgpu_config_top_cs = 1;
            d->gpgpu_config_top_rw = 0;
            d->gpgpu_config_top_adr = k < 10 ? k : 0x20 + (k - 10);
            d->gpgpu_config_top_wr_data = words[k];
        } else {
            d->gpgpu_config_cntrl_en_in = 0;
            d->gpgpu_config_top_cs = 0;
            d->gpgpu_config_top_rw = 1;
            d->gpgpu_config_top_adr = 0;
            d->gpgpu_config_top_wr_data = 0;
        }
        d->block_scheduler_en = p == start;
    };
    auto t0 = std::chrono::steady_clock::now();
    d->sys_clk = 0;
    inputs(-1);
    d->eval();
    long edge = 0;
    const char* ending = "T";
    unsigned long long cycles = 0;
    for (;; edge++) {
        if (edge >= start + 1) {
            cycles = edge - start;
            if (d->kernel_done) { ending = "D"; break; }
            if (cycles >= max_cycles) break;
        }
        d->sys_clk = 1;
        d->eval();
        inputs(edge);
        d->sys_clk = 0;
        d->eval();
    }
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%s PERIODS %ld CYCLES %llu SECONDS %.9f\n", ending, edge + 1, cycles, seconds);
    d->final();
    delete d;
    return 0;
}
