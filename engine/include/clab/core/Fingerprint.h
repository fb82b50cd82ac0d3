// TensorFlow's string fingerprints, which its feature columns bucket and cross with:
// Fingerprint64 is FarmHash's 64-bit fingerprint (the "na" variant, stable across
// platforms and releases), and FingerprintCat64 folds a second fingerprint into a first.
// StringToHashBucketFast and SparseCross must give the bucket ids TensorFlow gives, or a
// checkpoint's embedding rows would be read for the wrong words.
#pragma once

#include <cstdint>
#include <string_view>

namespace clab {

uint64_t Fingerprint64(std::string_view bytes);

// Not commutative: FingerprintCat64(a, b) != FingerprintCat64(b, a).
uint64_t FingerprintCat64(uint64_t first, uint64_t second);

}  // namespace clab
