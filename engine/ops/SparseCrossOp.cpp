// SparseCross, what tf.feature_column.crossed_column writes: for each batch row, every
// combination of one feature from each input (the last input varies fastest), as a sparse
// [batch, combinations] tensor. Inputs are sparse [batch, ?] tensors first, then dense
// [batch, k] ones, each of int64 or string features.
//   hashed_output: the combination's fingerprint, FingerprintCat64 folded from hash_key over
//     each feature's fingerprint (an int64 feature is its own), modulo num_buckets (or
//     modulo the largest int64 when num_buckets is 0) — TensorFlow's bucket ids exactly;
//   otherwise: the features as strings joined with "_X_".
#include "clab/core/Fingerprint.h"
#include "clab/core/TensorSize.h"
#include "clab/graph/OpRegistry.h"
#include "clab/graph/ShapeContext.h"
#include "clab/runtime/OpKernel.h"
#include "ops/ArrayOpsInternal.h"

#include <limits>

namespace clab {
namespace {

using array_internal::FailInvalidArgument;

// One input column's features, row by row: positions into its values tensor.
struct Column {
  const Tensor* values = nullptr;
  std::vector<std::vector<int64_t>> rows;  // rows[b]: positions of row b's features
};

struct CrossSettings {
  int64_t num_sparse = 0;
  int64_t num_dense = 0;
  bool hashed = false;
  int64_t num_buckets = 0;
  uint64_t hash_key = 0;
};

uint64_t FeatureHash(const Tensor& values, int64_t at) {
  if (values.dtype() == DT_STRING) return Fingerprint64(values.data<std::string>()[at]);
  return static_cast<uint64_t>(values.data<int64_t>()[at]);
}

std::string FeatureText(const Tensor& values, int64_t at) {
  if (values.dtype() == DT_STRING) return values.data<std::string>()[at];
  return std::to_string(values.data<int64_t>()[at]);
}

// The columns, or false with the status set. `batch` comes out as the common batch size.
bool ReadColumns(OpKernelContext* ctx, const CrossSettings& s, std::vector<Column>* columns, int64_t* batch) {
  *batch = -1;
  auto agree = [&](int64_t size, const char* what, int64_t i) {
    if (*batch < 0) *batch = size;
    if (size == *batch) return true;
    FailInvalidArgument(ctx, what, "[", i, "] has batch size ", size, ", but an earlier input has ", *batch);
    return false;
  };
  for (int64_t i = 0; i < s.num_sparse; ++i) {
    const Tensor& indices = ctx->input(static_cast<int>(i));
    const Tensor& values = ctx->input(static_cast<int>(s.num_sparse + i));
    const Tensor& shape = ctx->input(static_cast<int>(2 * s.num_sparse + i));
    if (indices.shape().rank() != 2 || indices.shape().dim(1) != 2 || shape.NumElements() != 2 ||
        values.shape().rank() != 1 || values.shape().dim(0) != indices.shape().dim(0)) {
      FailInvalidArgument(ctx, "sparse input ", i, " must be a rank-2 sparse tensor (indices [N, 2], values [N], ",
                          "shape [2]), got indices ", indices.shape().DebugString(), ", values ",
                          values.shape().DebugString(), ", shape ", shape.shape().DebugString());
      return false;
    }
    const int64_t rows = shape.data<int64_t>()[0];
    if (rows < 0 || !agree(rows, "shapes", i)) {
      if (rows < 0) FailInvalidArgument(ctx, "shapes[", i, "][0] = ", rows, " is negative");
      return false;
    }
    // A list per row: a row count from the input is held to the task's tensor limit first.
    if (auto room = TensorSize::ForAllocation(DT_INT64, {rows, 4}); !room.ok()) {
      ctx->SetStatus(errors::Annotate(room.status(), StrCat("shapes[", i, "][0]: ")));
      return false;
    }
    Column column;
    column.values = &values;
    column.rows.resize(static_cast<size_t>(rows));
    for (int64_t k = 0; k < indices.shape().dim(0); ++k) {
      const int64_t row = indices.data<int64_t>()[2 * k];
      if (row < 0 || row >= rows) {
        FailInvalidArgument(ctx, "indices[", i, "][", k, ", 0] = ", row, " is not a row of the batch [0, ", rows, ")");
        return false;
      }
      column.rows[static_cast<size_t>(row)].push_back(k);
    }
    columns->push_back(std::move(column));
  }
  for (int64_t i = 0; i < s.num_dense; ++i) {
    const Tensor& dense = ctx->input(static_cast<int>(3 * s.num_sparse + i));
    if (dense.shape().rank() != 2) {
      FailInvalidArgument(ctx, "dense input ", i, " must be a matrix [batch, k], got ", dense.shape().DebugString());
      return false;
    }
    const int64_t rows = dense.shape().dim(0), width = dense.shape().dim(1);
    if (!agree(rows, "dense_inputs", i)) return false;
    Column column;
    column.values = &dense;
    column.rows.resize(static_cast<size_t>(rows));
    for (int64_t b = 0; b < rows; ++b)
      for (int64_t k = 0; k < width; ++k) column.rows[static_cast<size_t>(b)].push_back(b * width + k);
    columns->push_back(std::move(column));
  }
  if (*batch < 0) *batch = 0;
  return true;
}

void CrossKernel(OpKernelContext* ctx, const CrossSettings& s) {
  std::vector<Column> columns;
  int64_t batch = 0;
  if (!ReadColumns(ctx, s, &columns, &batch)) return;
  // Combinations per row, with an overflow check: a row of many long columns is refused,
  // not wrapped.
  std::vector<int64_t> counts(static_cast<size_t>(batch), columns.empty() ? 0 : 1);
  int64_t total = 0, widest = 0;
  for (int64_t b = 0; b < batch; ++b) {
    int64_t& count = counts[static_cast<size_t>(b)];
    for (const Column& column : columns)
      if (__builtin_mul_overflow(count, static_cast<int64_t>(column.rows[static_cast<size_t>(b)].size()), &count))
        return FailInvalidArgument(ctx, "row ", b, " has too many feature combinations to count");
    if (__builtin_add_overflow(total, count, &total))
      return FailInvalidArgument(ctx, "the batch has too many feature combinations to count");
    widest = std::max(widest, count);
  }
  Tensor* out_indices = ctx->allocate_output(0, DT_INT64, TensorShape({total, 2}));
  Tensor* out_values = ctx->allocate_output(1, s.hashed ? DT_INT64 : DT_STRING, TensorShape({total}));
  Tensor* out_shape = ctx->allocate_output(2, DT_INT64, TensorShape({2}));
  if (out_indices == nullptr || out_values == nullptr || out_shape == nullptr) return;
  out_shape->data<int64_t>()[0] = batch;
  out_shape->data<int64_t>()[1] = widest;
  const uint64_t modulus = s.num_buckets > 0 ? static_cast<uint64_t>(s.num_buckets)
                                             : static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  int64_t at = 0;
  std::vector<size_t> pick(columns.size());
  for (int64_t b = 0; b < batch; ++b) {
    const auto row = static_cast<size_t>(b);
    std::fill(pick.begin(), pick.end(), 0);
    for (int64_t j = 0; j < counts[row]; ++j, ++at) {
      out_indices->data<int64_t>()[2 * at] = b;
      out_indices->data<int64_t>()[2 * at + 1] = j;
      if (s.hashed) {
        uint64_t hash = s.hash_key;
        for (size_t c = 0; c < columns.size(); ++c)
          hash = FingerprintCat64(hash, FeatureHash(*columns[c].values, columns[c].rows[row][pick[c]]));
        out_values->data<int64_t>()[at] = static_cast<int64_t>(hash % modulus);
      } else {
        std::string joined;
        for (size_t c = 0; c < columns.size(); ++c) {
          if (c > 0) joined += "_X_";
          joined += FeatureText(*columns[c].values, columns[c].rows[row][pick[c]]);
        }
        out_values->data<std::string>()[at] = std::move(joined);
      }
      // The next combination: the last column advances first.
      for (size_t c = columns.size(); c-- > 0;) {
        if (++pick[c] < columns[c].rows[row].size()) break;
        pick[c] = 0;
      }
    }
  }
}

StatusOr<std::unique_ptr<OpKernel>> MakeCrossKernel(OpKernelConstruction& c) {
  CrossSettings s;
  std::vector<DataType> sparse_types, dense_types;
  DataType out_type = DT_INVALID;
  int64_t hash_key = 0;
  CLAB_RETURN_IF_ERROR(c.GetAttr("N", &s.num_sparse));
  CLAB_RETURN_IF_ERROR(c.GetAttr("hashed_output", &s.hashed));
  CLAB_RETURN_IF_ERROR(c.GetAttr("num_buckets", &s.num_buckets));
  CLAB_RETURN_IF_ERROR(c.GetAttr("hash_key", &hash_key));
  CLAB_RETURN_IF_ERROR(c.GetAttr("sparse_types", &sparse_types));
  CLAB_RETURN_IF_ERROR(c.GetAttr("dense_types", &dense_types));
  CLAB_RETURN_IF_ERROR(c.GetAttr("out_type", &out_type));
  s.num_dense = static_cast<int64_t>(dense_types.size());
  s.hash_key = static_cast<uint64_t>(hash_key);
  const auto fail = [&](auto... why) {
    return errors::InvalidArgument("Node '", c.name(), "' (op SparseCross): ", why...);
  };
  if (static_cast<int64_t>(sparse_types.size()) != s.num_sparse)
    return fail("sparse_types lists ", sparse_types.size(), " types for N = ", s.num_sparse, " sparse inputs");
  if (s.hashed && out_type != DT_INT64)
    return fail("a hashed cross outputs int64, but out_type is ", DataTypeName(out_type));
  if (!s.hashed && out_type != DT_STRING)
    return fail("a cross without hashing outputs strings, but out_type is ", DataTypeName(out_type));
  if (s.num_buckets < 0) return fail("num_buckets = ", s.num_buckets, " is negative");
  return LambdaKernel([s](OpKernelContext* ctx) { CrossKernel(ctx, s); })(c);
}

}  // namespace

void RegisterSparseCrossOps(OpRegistry& registry) {
  registry.Register("SparseCross")
      .Input("indices: N * int64")
      .Input("values: sparse_types")
      .Input("shapes: N * int64")
      .Input("dense_inputs: dense_types")
      .Output("output_indices: int64")
      .Output("output_values: out_type")
      .Output("output_shape: int64")
      .Attr("N: int >= 0")
      .Attr("hashed_output: bool")
      .Attr("num_buckets: int >= 0")
      .Attr("hash_key: int")
      .Attr("sparse_types: list({int64, string}) >= 0")
      .Attr("dense_types: list({int64, string}) >= 0")
      .Attr("out_type: {int64, string}")
      .Attr("internal_type: {int64, string}")
      .SetShapeFn([](ShapeContext& c) {
        c.set_output(0, PartialShape({-1, 2}));
        c.set_output(1, PartialShape({-1}));
        c.set_output(2, PartialShape({2}));
        return OkStatus();
      })
      .Kernel("CPU", MakeCrossKernel)
      .Summary("Every combination of one feature per input, per batch row (hashed or joined with \"_X_\").")
      .Group("sparse");
}

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kSparseCrossOpFamily("sparse cross", RegisterSparseCrossOps);

}  // namespace clab
