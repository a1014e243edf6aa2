// SHA-256 (FIPS 180-4) of a byte string, as 64 lower-case hex digits: the fingerprint that
// `dsx catalog import-hf` writes into an imported entry's source.
#pragma once

#include <string>
#include <string_view>

namespace dsx {

std::string sha256_hex(std::string_view bytes);

}  // namespace dsx
