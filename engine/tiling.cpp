#include "engine/tiling.hpp"

#include <cmath>

namespace dsx {

namespace {
bool divides(double divisor, double value) { return divisor >= 1 && std::fmod(value, divisor) == 0; }
}  // namespace

MatmulTileCost matmul_tile_cost(const MatmulTile& t) {
  MatmulTileCost c;
  const double n = t.n, l = t.block_tile, v = t.thread_tile, s = t.k_step;
  c.flops = square_matmul_flops(n);
  c.arithmetic_ops = n * n * (2.0 * n - 1.0);
  c.global_elements = 2.0 * n * n * n / l;
  c.shared_elements = 2.0 * n * n * n / v;
  c.thread_blocks = (n / l) * (n / l);
  c.threads_per_block = (l / v) * (l / v);
  c.shared_memory_bytes_per_block = 2.0 * s * l * kFp32Bytes;
  c.registers_per_thread = v * v + 2.0 * v + t.extra_registers_per_thread;
  c.registers_per_block = c.registers_per_thread * c.threads_per_block;
  c.barriers_per_block = 2.0 * n / s;
  return c;
}

TileVerdict check_matmul_tile(const MatmulTile& t, const MatmulTileCost& c, const HardwareSpec& gpu) {
  if (!divides(t.block_tile, t.n)) return TileVerdict::block_tile_does_not_divide_n;
  if (!divides(t.thread_tile, t.block_tile)) return TileVerdict::thread_tile_does_not_divide_block_tile;
  if (!divides(t.k_step, t.n)) return TileVerdict::k_step_does_not_divide_n;
  if (gpu.shared_memory_per_block_bytes <= 0 || gpu.shared_memory_per_sm_bytes <= 0 ||
      gpu.registers_per_thread <= 0 || gpu.registers_per_sm <= 0 || gpu.max_threads_per_block <= 0) {
    return TileVerdict::limits_unknown;
  }
  if (c.threads_per_block > gpu.max_threads_per_block) return TileVerdict::too_many_threads;
  if (c.shared_memory_bytes_per_block > gpu.shared_memory_per_block_bytes ||
      c.shared_memory_bytes_per_block > gpu.shared_memory_per_sm_bytes) {
    return TileVerdict::too_much_shared_memory;
  }
  if (c.registers_per_thread > gpu.registers_per_thread) return TileVerdict::too_many_registers_per_thread;
  if (c.registers_per_block > gpu.registers_per_sm) return TileVerdict::registers_exceed_sm;
  return TileVerdict::fits;
}

double square_matmul_flops(double n) { return 2.0 * n * n * n; }

double square_matmul_min_bytes(double n, double bytes_per_element) { return 3.0 * n * n * bytes_per_element; }

double square_matmul_intensity_flop_per_byte(double n, double bytes_per_element) {
  return square_matmul_flops(n) / square_matmul_min_bytes(n, bytes_per_element);
}

double matmul_function_ops_per_element(double n) { return n * n * (2.0 * n - 1.0) / (2.0 * n * n); }

}  // namespace dsx
