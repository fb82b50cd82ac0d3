// AsString: each element of a number or bool tensor as text, as TensorFlow's op formats it
// (an Estimator head's class ids become its "classes" strings). The printf form is built
// from the attrs: '%', the fill flag (one of " +-0#"), the width, ".precision", then 'd'
// for integers and, for floats, 'e' (scientific), 'g' (shortest) or 'f'; bools print as
// "true" / "false".
#include "clab/graph/OpRegistry.h"
#include "clab/graph/ShapeContext.h"
#include "clab/runtime/OpKernel.h"
#include "ops/ArrayOpsInternal.h"

#include <cinttypes>
#include <cstdarg>
#include <cstdio>

namespace clab {
namespace {

using array_internal::FailInvalidArgument;

// Widths and precisions above this are refused when the kernel is built: printf makes room
// for every digit asked for, so a precision of 2^33 asked for 8 GiB (a fuzz find).
constexpr int64_t kMaxWidthOrPrecision = 1000;

std::string Format(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string Format(const char* format, ...) {
  char buffer[512];
  va_list args, again;
  va_start(args, format);
  va_copy(again, args);
  const int n = std::vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  std::string text;
  if (n >= 0 && static_cast<size_t>(n) < sizeof(buffer)) {
    text.assign(buffer, static_cast<size_t>(n));
  } else if (n >= 0) {
    // Longer than the buffer (a wide field or many decimals): formatted again in full.
    text.resize(static_cast<size_t>(n) + 1);
    std::vsnprintf(text.data(), text.size(), format, again);
    text.resize(static_cast<size_t>(n));
  }
  va_end(again);
  return text;
}

class AsStringKernel : public OpKernel {
 public:
  explicit AsStringKernel(std::string format) : format_(std::move(format)) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    Tensor* output = ctx->allocate_output(0, DT_STRING, input.shape());
    if (output == nullptr) return;
    std::string* out = output->data<std::string>();
    const char* format = format_.c_str();
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    for (int64_t i = 0; i < input.NumElements(); ++i) {
      switch (input.dtype()) {
        case DT_FLOAT: out[i] = Format(format, static_cast<double>(input.data<float>()[i])); break;
        case DT_DOUBLE: out[i] = Format(format, input.data<double>()[i]); break;
        case DT_INT32: out[i] = Format(format, input.data<int32_t>()[i]); break;
        case DT_INT64: out[i] = Format(format, input.data<int64_t>()[i]); break;
        case DT_BOOL: out[i] = input.data<bool>()[i] ? "true" : "false"; break;
        default: return FailInvalidArgument(ctx, "AsString has no kernel for ", DataTypeName(input.dtype()));
      }
    }
#pragma GCC diagnostic pop
  }

 private:
  const std::string format_;
};

StatusOr<std::unique_ptr<OpKernel>> MakeAsStringKernel(OpKernelConstruction& c) {
  const DataType dtype = c.input_type(0);
  int64_t precision = -1, width = -1;
  bool scientific = false, shortest = false;
  std::string fill;
  CLAB_RETURN_IF_ERROR(c.GetAttr("precision", &precision));
  CLAB_RETURN_IF_ERROR(c.GetAttr("scientific", &scientific));
  CLAB_RETURN_IF_ERROR(c.GetAttr("shortest", &shortest));
  CLAB_RETURN_IF_ERROR(c.GetAttr("width", &width));
  CLAB_RETURN_IF_ERROR(c.GetAttr("fill", &fill));
  auto bad = [&](const std::string& what) {
    return errors::InvalidArgument("Node '", c.name(), "' (op AsString): ", what);
  };
  const bool floating = dtype == DT_FLOAT || dtype == DT_DOUBLE;
  if (!floating && (scientific || shortest))
    return bad("scientific and shortest format not supported for datatype " + DataTypeName(dtype));
  if (!floating && precision >= 0) return bad("precision not supported for datatype " + DataTypeName(dtype));
  if (scientific && shortest) return bad("cannot select both scientific and shortest notation");
  if (width > kMaxWidthOrPrecision)
    return bad("width " + std::to_string(width) + " is above the " + std::to_string(kMaxWidthOrPrecision) +
               " that AsString allows");
  if (precision > kMaxWidthOrPrecision)
    return bad("precision " + std::to_string(precision) + " is above the " + std::to_string(kMaxWidthOrPrecision) +
               " that AsString allows");
  if (fill.size() > 1) return bad("fill must be one or fewer characters");
  if (!fill.empty() && std::string(" +-0#").find(fill[0]) == std::string::npos)
    return bad("fill argument not supported: \"" + fill + "\"");
  if (dtype != DT_FLOAT && dtype != DT_DOUBLE && dtype != DT_INT32 && dtype != DT_INT64 && dtype != DT_BOOL)
    return bad("no CPU kernel for type " + DataTypeName(dtype));
  std::string format = "%" + fill;
  if (width > -1) format += std::to_string(width);
  if (precision > -1) format += "." + std::to_string(precision);
  if (dtype == DT_INT64) format += PRId64;
  else if (dtype == DT_INT32) format += "d";
  else if (floating) format += scientific ? "e" : shortest ? "g" : "f";
  return std::unique_ptr<OpKernel>(new AsStringKernel(format));
}

}  // namespace

void RegisterStringFormatOps(OpRegistry& registry) {
  registry.Register("AsString")
      .Input("input: T")
      .Output("output: string")
      .Attr("T: {int8, int16, int32, int64, complex64, complex128, float, double, bool}")
      .Attr("precision: int = -1")
      .Attr("scientific: bool = false")
      .Attr("shortest: bool = false")
      .Attr("width: int = -1")
      .Attr("fill: string = ''")
      .SetShapeFn([](ShapeContext& c) {
        c.set_output(0, c.input_shape(0));
        return OkStatus();
      })
      .Kernel("CPU", MakeAsStringKernel)
      .Summary("Each element of a number or bool tensor as a string (printf-style precision, width, fill).")
      .Group("string");
}

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kStringFormatOpFamily("string format", RegisterStringFormatOps);

}  // namespace clab
