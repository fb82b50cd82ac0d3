// IDX files (MNIST's format), plain or gzip-compressed, as the dataset op reads them: the
// header alone (shape functions) and the whole array.
#include "FuzzFile.h"
#include "clab/io/IdxFile.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static clab::fuzz::FuzzFile file("images.idx");
  file.Write(data, size);
  auto header = clab::ReadIdxHeader(file.path());
  auto array = clab::ReadIdxFile(file.path());
  if (!array.ok()) return 0;
  // The whole file read means its header did too, with the same shape.
  if (!header.ok() || header->dims != array->dims() || header->type != array->type()) std::abort();
  const int64_t n = array->NumElements();
  if (static_cast<int64_t>(array->bytes().size()) != n * clab::IdxTypeSize(array->type())) std::abort();
  if (n > 0) (void)array->Value(n - 1);
  return 0;
}
