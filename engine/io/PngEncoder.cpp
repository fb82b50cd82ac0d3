#include "clab/io/PngEncoder.h"

#include <zlib.h>

#include <limits>
#include <vector>

namespace clab::png {
namespace {

void AppendBigEndian32(std::string* out, uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>((value >> shift) & 0xFF));
}

// A chunk: length, type, data, and the CRC-32 of type and data.
void AppendChunk(std::string* out, const char type[4], const std::string& data) {
  AppendBigEndian32(out, static_cast<uint32_t>(data.size()));
  const size_t type_at = out->size();
  out->append(type, 4);
  out->append(data);
  const auto* covered = reinterpret_cast<const Bytef*>(out->data() + type_at);
  AppendBigEndian32(out,
                    static_cast<uint32_t>(crc32(crc32(0L, Z_NULL, 0), covered, static_cast<uInt>(data.size() + 4))));
}

}  // namespace

StatusOr<std::string> Encode(const uint8_t* pixels, int64_t height, int64_t width, int channels) {
  if (channels < 1 || channels > 4) return errors::InvalidArgument("a PNG image has 1 to 4 channels, got ", channels);
  if (height <= 0 || width <= 0 || height > std::numeric_limits<int32_t>::max() ||
      width > std::numeric_limits<int32_t>::max())
    return errors::InvalidArgument("a PNG image needs a positive height and width, got ", height, " x ", width);
  // Colour types: 0 grey, 4 grey + alpha, 2 RGB, 6 RGBA.
  static constexpr char kColourType[] = {0, 0, 4, 2, 6};
  std::string header;
  AppendBigEndian32(&header, static_cast<uint32_t>(width));
  AppendBigEndian32(&header, static_cast<uint32_t>(height));
  header.push_back(8);  // bits per channel
  header.push_back(kColourType[channels]);
  header.append(3, '\0');  // deflate compression, adaptive filtering (method 0), no interlace

  // Each row starts with its filter type, 0 (none).
  const size_t row_bytes = static_cast<size_t>(width) * static_cast<size_t>(channels);
  std::vector<Bytef> raw;
  raw.reserve((row_bytes + 1) * static_cast<size_t>(height));
  for (int64_t y = 0; y < height; ++y) {
    raw.push_back(0);
    const uint8_t* row = pixels + static_cast<size_t>(y) * row_bytes;
    raw.insert(raw.end(), row, row + row_bytes);
  }
  uLongf compressed_size = compressBound(static_cast<uLong>(raw.size()));
  std::string compressed(compressed_size, '\0');
  if (compress2(reinterpret_cast<Bytef*>(compressed.data()), &compressed_size, raw.data(),
                static_cast<uLong>(raw.size()), Z_DEFAULT_COMPRESSION) != Z_OK)
    return errors::Internal("zlib could not compress a ", height, " x ", width, " image");
  compressed.resize(compressed_size);

  std::string png("\x89PNG\r\n\x1a\n", 8);
  AppendChunk(&png, "IHDR", header);
  AppendChunk(&png, "IDAT", compressed);
  AppendChunk(&png, "IEND", std::string());
  return png;
}

}  // namespace clab::png
