// Record decoders of TF 1.x input pipelines:
//  - DecodeCSV: each string of `records` split into fields (field_delim; with
//    use_quote_delim a field may be quoted, "" standing for a quote inside it), one output
//    per column, of the column's default's type and of the records' shape. An empty field,
//    or one equal to na_value, takes the column's default; a column whose default is empty
//    is required. select_cols keeps only the listed columns.
//  - DecodeRaw: each string's bytes as elements of out_type (little- or big-endian), the
//    output shaped as the input plus a last dimension of the element count; all strings
//    must be of one length.
// Bad input fails naming the record and field (DecodeCSV) or the element (DecodeRaw).
#include "clab/graph/OpRegistry.h"
#include "clab/graph/ShapeContext.h"
#include "clab/runtime/OpKernel.h"
#include "ops/ArrayOpsInternal.h"

#include <absl/strings/ascii.h>
#include <absl/strings/numbers.h>

#include <algorithm>
#include <bit>
#include <cstring>

namespace clab {
namespace {

using array_internal::FailInvalidArgument;

struct CsvAttrs {
  std::vector<DataType> types;
  char delim = ',';
  bool quoted = true;
  std::string na_value;
  std::vector<int64_t> select_cols;
};

// The fields of one record; false with `error` set for a malformed quote.
bool SplitRecord(const std::string& record, const CsvAttrs& attrs, std::vector<std::string>* fields,
                 std::string* error) {
  fields->clear();
  size_t i = 0;
  const size_t n = record.size();
  while (true) {
    std::string field;
    if (attrs.quoted && i < n && record[i] == '"') {
      ++i;
      bool closed = false;
      while (i < n) {
        if (record[i] == '"') {
          if (i + 1 < n && record[i + 1] == '"') {
            field.push_back('"');
            i += 2;
            continue;
          }
          closed = true;
          ++i;
          break;
        }
        field.push_back(record[i++]);
      }
      if (!closed) {
        *error = "a quoted field is not closed";
        return false;
      }
      if (i < n && record[i] != attrs.delim) {
        *error = "a quoted field must be followed by the delimiter or the end of the record";
        return false;
      }
    } else {
      while (i < n && record[i] != attrs.delim) {
        if (attrs.quoted && record[i] == '"') {
          *error = "a quote inside an unquoted field";
          return false;
        }
        field.push_back(record[i++]);
      }
    }
    fields->push_back(std::move(field));
    if (i >= n) return true;
    ++i;  // the delimiter; a record ending in one has an empty last field
  }
}

Status ParseField(const std::string& text, DataType dtype, Tensor* out, int64_t at) {
  const absl::string_view trimmed = absl::StripAsciiWhitespace(text);
  bool ok = true;
  switch (dtype) {
    case DT_FLOAT: ok = absl::SimpleAtof(trimmed, &out->data<float>()[at]); break;
    case DT_DOUBLE: ok = absl::SimpleAtod(trimmed, &out->data<double>()[at]); break;
    case DT_INT32: ok = absl::SimpleAtoi(trimmed, &out->data<int32_t>()[at]); break;
    case DT_INT64: ok = absl::SimpleAtoi(trimmed, &out->data<int64_t>()[at]); break;
    default: out->data<std::string>()[at] = text;
  }
  if (!ok) return errors::InvalidArgument("'", text, "' is not a valid ", DataTypeName(dtype));
  return OkStatus();
}

void CopyDefault(const Tensor& fill, Tensor* out, int64_t at) {
  switch (out->dtype()) {
    case DT_FLOAT: out->data<float>()[at] = fill.data<float>()[0]; break;
    case DT_DOUBLE: out->data<double>()[at] = fill.data<double>()[0]; break;
    case DT_INT32: out->data<int32_t>()[at] = fill.data<int32_t>()[0]; break;
    case DT_INT64: out->data<int64_t>()[at] = fill.data<int64_t>()[0]; break;
    default: out->data<std::string>()[at] = fill.data<std::string>()[0];
  }
}

void DecodeCsvCompute(OpKernelContext* ctx, const CsvAttrs& attrs) {
  const Tensor& records = ctx->input(0);
  const size_t columns = attrs.types.size();
  for (size_t c = 0; c < columns; ++c) {
    const Tensor& fill = ctx->input(1 + static_cast<int>(c));
    if (fill.dtype() != attrs.types[c] || fill.NumElements() > 1)
      return FailInvalidArgument(ctx, "DecodeCSV: record_defaults[", c, "] must be a ", DataTypeName(attrs.types[c]),
                                 " scalar or an empty vector, got ", DataTypeName(fill.dtype()), " ",
                                 fill.shape().DebugString());
  }
  std::vector<Tensor*> outputs(columns);
  for (size_t c = 0; c < columns; ++c) {
    outputs[c] = ctx->allocate_output(static_cast<int>(c), attrs.types[c], records.shape());
    if (outputs[c] == nullptr) return;
  }
  std::vector<std::string> fields;
  const size_t wanted = attrs.select_cols.empty() ? columns : static_cast<size_t>(attrs.select_cols.back() + 1);
  for (int64_t r = 0; r < records.NumElements(); ++r) {
    std::string error;
    if (!SplitRecord(records.data<std::string>()[r], attrs, &fields, &error))
      return FailInvalidArgument(ctx, "DecodeCSV: record ", r, ": ", error);
    if (attrs.select_cols.empty() ? fields.size() != wanted : fields.size() < wanted)
      return FailInvalidArgument(ctx, "DecodeCSV: expect ", wanted, " fields but have ", fields.size(), " in record ",
                                 r);
    for (size_t c = 0; c < columns; ++c) {
      const size_t f = attrs.select_cols.empty() ? c : static_cast<size_t>(attrs.select_cols[c]);
      const std::string& field = fields[f];
      const Tensor& fill = ctx->input(1 + static_cast<int>(c));
      if (field.empty() || (!attrs.na_value.empty() && field == attrs.na_value)) {
        if (fill.NumElements() == 0)
          return FailInvalidArgument(ctx, "DecodeCSV: field ", f, " is required but missing in record ", r);
        CopyDefault(fill, outputs[c], r);
        continue;
      }
      Status parsed = ParseField(field, attrs.types[c], outputs[c], r);
      if (!parsed.ok())
        return FailInvalidArgument(ctx, "DecodeCSV: field ", f, " in record ", r, ": ", parsed.message());
    }
  }
}

StatusOr<std::unique_ptr<OpKernel>> MakeDecodeCsv(OpKernelConstruction& c) {
  CsvAttrs attrs;
  std::string delim;
  CLAB_RETURN_IF_ERROR(c.GetAttr("OUT_TYPE", &attrs.types));
  CLAB_RETURN_IF_ERROR(c.GetAttr("field_delim", &delim));
  CLAB_RETURN_IF_ERROR(c.GetAttr("use_quote_delim", &attrs.quoted));
  CLAB_RETURN_IF_ERROR(c.GetAttr("na_value", &attrs.na_value));
  if (c.node().attr().count("select_cols")) CLAB_RETURN_IF_ERROR(c.GetAttr("select_cols", &attrs.select_cols));
  if (delim.size() != 1)
    return errors::InvalidArgument("DecodeCSV '", c.name(), "': field_delim must be one character, got '", delim, "'");
  attrs.delim = delim[0];
  if (!attrs.select_cols.empty()) {
    if (attrs.select_cols.size() != attrs.types.size())
      return errors::InvalidArgument("DecodeCSV '", c.name(), "': select_cols has ", attrs.select_cols.size(),
                                     " columns, record_defaults ", attrs.types.size());
    for (size_t i = 0; i < attrs.select_cols.size(); ++i)
      if (attrs.select_cols[i] < 0 || (i > 0 && attrs.select_cols[i] <= attrs.select_cols[i - 1]))
        return errors::InvalidArgument("DecodeCSV '", c.name(),
                                       "': select_cols must be non-negative and strictly increasing");
  }
  return LambdaKernel([attrs](OpKernelContext* ctx) { DecodeCsvCompute(ctx, attrs); })(c);
}

void DecodeRawCompute(OpKernelContext* ctx, DataType dtype, bool little_endian) {
  const Tensor& bytes = ctx->input(0);
  const size_t width = DataTypeSize(dtype);
  const int64_t n = bytes.NumElements();
  const size_t length = n > 0 ? bytes.data<std::string>()[0].size() : 0;
  if (length % width != 0)
    return FailInvalidArgument(ctx, "DecodeRaw: input has length ", length, " that is not a multiple of ", width,
                               ", the size of ", DataTypeName(dtype));
  for (int64_t i = 1; i < n; ++i)
    if (bytes.data<std::string>()[i].size() != length)
      return FailInvalidArgument(ctx, "DecodeRaw requires input strings to all be the same size, but element ", i,
                                 " has size ", bytes.data<std::string>()[i].size(), " != ", length);
  std::vector<int64_t> dims = bytes.shape().dims();
  dims.push_back(static_cast<int64_t>(length / width));
  Tensor* out = ctx->allocate_output(0, dtype, TensorShape(dims));
  if (out == nullptr) return;
  char* to = static_cast<char*>(out->raw_data());
  const bool swap = little_endian != (std::endian::native == std::endian::little);
  for (int64_t i = 0; i < n; ++i) {
    const std::string& from = bytes.data<std::string>()[i];
    char* row = to + static_cast<size_t>(i) * length;
    std::memcpy(row, from.data(), length);
    if (swap && width > 1)
      for (size_t e = 0; e < length; e += width) std::reverse(row + e, row + e + width);
  }
}

StatusOr<std::unique_ptr<OpKernel>> MakeDecodeRaw(OpKernelConstruction& c) {
  DataType dtype = DT_INVALID;
  bool little_endian = true;
  CLAB_RETURN_IF_ERROR(c.GetAttr("out_type", &dtype));
  CLAB_RETURN_IF_ERROR(c.GetAttr("little_endian", &little_endian));
  if (!IsSupportedDataType(dtype) || dtype == DT_STRING || dtype == DT_BOOL || DataTypeSize(dtype) == 0)
    return errors::Unimplemented("DecodeRaw '", c.name(), "': out_type ", DataTypeName(dtype),
                                 " is not supported here (float, double, int32, int64, uint8 are)");
  return LambdaKernel([dtype, little_endian](OpKernelContext* ctx) { DecodeRawCompute(ctx, dtype, little_endian); })(c);
}

}  // namespace

void RegisterDecodeOps(OpRegistry& registry) {
  registry.Register("DecodeCSV")
      .Input("records: string")
      .Input("record_defaults: OUT_TYPE")
      .Output("output: OUT_TYPE")
      .Attr("OUT_TYPE: list({float, double, int32, int64, string})")
      .Attr("field_delim: string = ','")
      .Attr("use_quote_delim: bool = true")
      .Attr("na_value: string = ''")
      .Attr("select_cols: list(int) = []")
      .SetShapeFn([](ShapeContext& c) {
        for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, c.input_shape(0));
        return OkStatus();
      })
      .Kernel("CPU", MakeDecodeCsv)
      .Summary("CSV records as one tensor per column, missing fields taking the column's default.")
      .Group("io");
  registry.Register("DecodeRaw")
      .Input("bytes: string")
      .Output("output: out_type")
      .Attr("out_type: {half, float, double, int32, uint16, uint8, int16, int8, int64}")
      .Attr("little_endian: bool = true")
      .SetShapeFn([](ShapeContext& c) {
        const PartialShape& in = c.input_shape(0);
        if (!in.known_rank()) {
          c.set_output(0, PartialShape::Unknown());
          return OkStatus();
        }
        std::vector<int64_t> dims = in.dims();
        dims.push_back(-1);
        c.set_output(0, PartialShape(dims));
        return OkStatus();
      })
      .Kernel("CPU", MakeDecodeRaw)
      .Summary("The bytes of each string as numbers of out_type, in a new last dimension.")
      .Group("io");
}

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kDecodeOpFamily("decode", RegisterDecodeOps);

}  // namespace clab
