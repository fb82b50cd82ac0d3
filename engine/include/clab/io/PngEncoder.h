// A minimal PNG writer for summary images: 8-bit grey, grey + alpha, RGB or RGBA pixels,
// one IDAT chunk compressed with zlib, no filtering, no interlace (PNG specification,
// ISO/IEC 15948).
#pragma once

#include "clab/core/Status.h"

#include <cstdint>
#include <string>

namespace clab::png {

// The PNG file of a height x width image whose row-major pixels hold `channels` (1 to 4)
// bytes each.
StatusOr<std::string> Encode(const uint8_t* pixels, int64_t height, int64_t width, int channels);

}  // namespace clab::png
