#include "engine/tiling.hpp"

#include <gtest/gtest.h>

namespace dsx {
namespace {

// A GPU with compute capability 8.0 limits (CUDA C Programming Guide: 163 KB shared memory per
// block, 164 KB per SM, 255 registers per thread, 64 K registers per SM, 1,024 threads per block).
HardwareSpec cc80() {
  HardwareSpec gpu;
  gpu.id = "cc80";
  gpu.shared_memory_per_block_bytes = 163 * 1024.0;
  gpu.shared_memory_per_sm_bytes = 164 * 1024.0;
  gpu.registers_per_thread = 255;
  gpu.registers_per_sm = 65536;
  gpu.max_threads_per_block = 1024;
  return gpu;
}

// seeds/002 "Memory overhead?": 2LN per block x N^2/L^2 blocks = 2N^3/L global; 2VN per thread x
// N^2/V^2 threads = 2N^3/V shared.
TEST(Tiling, SlidesTrafficFormulas) {
  const MatmulTile t{.n = 1024, .block_tile = 64, .thread_tile = 4, .k_step = 16};
  const MatmulTileCost c = matmul_tile_cost(t);
  const double n3 = 1024.0 * 1024.0 * 1024.0;
  EXPECT_DOUBLE_EQ(c.flops, 2 * n3);
  EXPECT_DOUBLE_EQ(c.global_elements, 2 * n3 / 64);
  EXPECT_DOUBLE_EQ(c.global_elements, (2 * 64 * 1024.0) * (1024.0 * 1024.0 / (64 * 64)));
  EXPECT_DOUBLE_EQ(c.shared_elements, 2 * n3 / 4);
  EXPECT_DOUBLE_EQ(c.shared_elements, (2 * 4 * 1024.0) * (1024.0 * 1024.0 / 16));
  EXPECT_DOUBLE_EQ(c.thread_blocks, 256);
  EXPECT_DOUBLE_EQ(c.threads_per_block, 256);
  EXPECT_DOUBLE_EQ(c.shared_memory_bytes_per_block, 2 * 16 * 64 * 4);  // sA[S][L] + sB[S][L], fp32
  EXPECT_DOUBLE_EQ(c.registers_per_thread, 16 + 8);                  // c[V][V] + a[V] + b[V]
  EXPECT_DOUBLE_EQ(c.registers_per_block, 24 * 256);
  EXPECT_DOUBLE_EQ(c.barriers_per_block, 2 * 1024 / 16);
  // Global intensity is L / 4 FLOP/byte at fp32, shared V / 4.
  EXPECT_DOUBLE_EQ(c.flops / (c.global_elements * kFp32Bytes), 16.0);
  EXPECT_DOUBLE_EQ(c.flops / (c.shared_elements * kFp32Bytes), 1.0);
}

TEST(Tiling, UntiledStrawmanReadsTwoNCubed) {
  // seeds/002 strawman: each thread computes one element (L = V = 1) and reads a row and a column.
  const MatmulTileCost c = matmul_tile_cost({.n = 1024, .block_tile = 1, .thread_tile = 1, .k_step = 1});
  EXPECT_DOUBLE_EQ(c.global_elements, 2.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(c.threads_per_block, 1);
}

// seeds/002 quiz: Load A; Load B; C = matmul(A, B), A and B 2 x 2: 8 multiplies + 4 adds over 8
// loaded elements = 1.5 (answer D).
TEST(Tiling, SlidesQuizTwoByTwoMatmul) {
  EXPECT_DOUBLE_EQ(matmul_function_ops_per_element(2), 1.5);
  const MatmulTileCost c = matmul_tile_cost({.n = 2, .block_tile = 2, .thread_tile = 1, .k_step = 2});
  EXPECT_DOUBLE_EQ(c.arithmetic_ops, 12);
  EXPECT_DOUBLE_EQ(c.global_elements, 8);
  EXPECT_DOUBLE_EQ(c.arithmetic_ops / c.global_elements, 1.5);
  // The other choices come from other counts: 2N^3 = 16 FLOPs over 8 loads is 2 (B); storing C too,
  // 12 over 12 is 1 (C); 0.334 is the vector add's 1 op per 3 memory operations (A).
  EXPECT_DOUBLE_EQ(c.flops / c.global_elements, 2.0);
  EXPECT_DOUBLE_EQ(c.arithmetic_ops / (c.global_elements + 4), 1.0);
}

// seeds/003 "A Concrete Example: The A100 Analysis": GEMM 4096 has intensity int(4096 / 3) = 1365 at
// fp16 (2 bytes per element); at fp32 it halves.
TEST(Tiling, Gemm4096Intensity) {
  EXPECT_NEAR(square_matmul_intensity_flop_per_byte(4096, 2.0), 1365.33, 0.01);
  EXPECT_DOUBLE_EQ(square_matmul_intensity_flop_per_byte(4096, 2.0), 4096.0 / 3.0);
  EXPECT_DOUBLE_EQ(square_matmul_intensity_flop_per_byte(4096, 4.0), 4096.0 / 6.0);
  EXPECT_DOUBLE_EQ(square_matmul_min_bytes(4096, 2.0), 3.0 * 4096 * 4096 * 2);
}

TEST(Tiling, FeasibleTileFits) {
  const MatmulTile t{.n = 4096, .block_tile = 128, .thread_tile = 8, .k_step = 32};
  const MatmulTileCost c = matmul_tile_cost(t);
  EXPECT_DOUBLE_EQ(c.threads_per_block, 256);
  EXPECT_DOUBLE_EQ(c.registers_per_thread, 80);
  EXPECT_DOUBLE_EQ(c.shared_memory_bytes_per_block, 32 * 1024);
  EXPECT_EQ(check_matmul_tile(t, c, cc80()), TileVerdict::fits);
}

TEST(Tiling, EachLimitHasItsVerdict) {
  const HardwareSpec gpu = cc80();
  const auto verdict = [&](MatmulTile t) { return check_matmul_tile(t, matmul_tile_cost(t), gpu); };
  EXPECT_EQ(verdict({.n = 1000, .block_tile = 64, .thread_tile = 4, .k_step = 8}),
            TileVerdict::block_tile_does_not_divide_n);
  EXPECT_EQ(verdict({.n = 4096, .block_tile = 64, .thread_tile = 3, .k_step = 8}),
            TileVerdict::thread_tile_does_not_divide_block_tile);
  EXPECT_EQ(verdict({.n = 4096, .block_tile = 64, .thread_tile = 4, .k_step = 24}),
            TileVerdict::k_step_does_not_divide_n);
  // 64 / 1 = 64 -> 4,096 threads.
  EXPECT_EQ(verdict({.n = 4096, .block_tile = 64, .thread_tile = 1, .k_step = 8}), TileVerdict::too_many_threads);
  // 2 x 128 x 256 x 4 B = 256 KiB > 163 KiB.
  EXPECT_EQ(verdict({.n = 4096, .block_tile = 256, .thread_tile = 16, .k_step = 128}),
            TileVerdict::too_much_shared_memory);
  // 2 x 64 x 128 x 4 B = 64 KiB fits; V = 16 needs 256 + 32 = 288 registers > 255.
  EXPECT_EQ(verdict({.n = 4096, .block_tile = 128, .thread_tile = 16, .k_step = 64}),
            TileVerdict::too_many_registers_per_thread);
  // L = 64, V = 2: 1,024 threads x (4 + 4 + 60 extra) = 69,632 > 65,536 registers.
  EXPECT_EQ(verdict({.n = 4096, .block_tile = 64, .thread_tile = 2, .k_step = 8, .extra_registers_per_thread = 60}),
            TileVerdict::registers_exceed_sm);
  EXPECT_EQ(verdict({.n = 4096, .block_tile = 64, .thread_tile = 2, .k_step = 8, .extra_registers_per_thread = 56}),
            TileVerdict::fits);
}

TEST(Tiling, UnknownLimitsMakeEveryTileInfeasible) {
  HardwareSpec gpu = cc80();
  gpu.registers_per_sm = 0;
  const MatmulTile t{.n = 4096, .block_tile = 128, .thread_tile = 8, .k_step = 32};
  EXPECT_EQ(check_matmul_tile(t, matmul_tile_cost(t), gpu), TileVerdict::limits_unknown);
  EXPECT_EQ(check_matmul_tile(t, matmul_tile_cost(t), HardwareSpec{}), TileVerdict::limits_unknown);
  // Shape errors are reported before the hardware is looked at.
  const MatmulTile bad{.n = 100, .block_tile = 128, .thread_tile = 8, .k_step = 32};
  EXPECT_EQ(check_matmul_tile(bad, matmul_tile_cost(bad), HardwareSpec{}), TileVerdict::block_tile_does_not_divide_n);
}

}  // namespace
}  // namespace dsx
