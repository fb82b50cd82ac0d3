// Hash tables, what a vocabulary column (categorical_column_with_vocabulary_list) and
// tf.contrib.lookup write: HashTableV2 makes a table on its device and outputs its handle;
// LookupTableImportV2 and InitializeTableV2 fill it once from keys and values;
// LookupTableFindV2 maps keys to values (default_value for a key not in the table);
// LookupTableSizeV2 and LookupTableExportV2 report what it holds.
//
// As in TensorFlow, a table is filled once: filling it again with the same entries is
// accepted (an init op that runs twice), with different ones it is FAILED_PRECONDITION; a
// key given twice with two values, or a lookup before the table is filled, is an error
// naming the table and the key.
#include "clab/graph/OpRegistry.h"
#include "clab/graph/ShapeContext.h"
#include "clab/runtime/OpKernel.h"
#include "clab/runtime/ResourceMgr.h"
#include "ops/ArrayOpsInternal.h"
#include "ops/ElementCopy.h"
#include "ops/ResourceHandles.h"

#include <mutex>
#include <unordered_map>

namespace clab {
namespace {

using array_internal::CopyElements;
using array_internal::FailInvalidArgument;
using array_internal::NodeSuffix;

constexpr const char* kKind = "lookup table";

class HashTable : public Resource {
 public:
  HashTable(DataType key_dtype, DataType value_dtype, std::string name)
      : key_dtype(key_dtype), value_dtype(value_dtype), name(std::move(name)) {}
  std::string DebugString() const override {
    return StrCat("HashTable ", name, " (", DataTypeName(key_dtype), " -> ", DataTypeName(value_dtype), ")");
  }

  const DataType key_dtype, value_dtype;
  const std::string name;
  std::mutex mu;
  bool initialized = false;
  Tensor keys, values;                             // as filled, in order
  std::unordered_map<std::string, int64_t> index;  // key bytes -> position in keys/values
};

// A key as bytes: a string as it is, an integer as its 8 bytes (int32 widened).
std::string KeyBytes(const Tensor& keys, int64_t i) {
  if (keys.dtype() == DT_STRING) return keys.data<std::string>()[i];
  const int64_t value = keys.dtype() == DT_INT64 ? keys.data<int64_t>()[i] : keys.data<int32_t>()[i];
  return std::string(reinterpret_cast<const char*>(&value), sizeof(value));
}

std::string KeyText(const Tensor& keys, int64_t i) {
  if (keys.dtype() == DT_STRING) return StrCat("'", keys.data<std::string>()[i], "'");
  return StrCat(keys.dtype() == DT_INT64 ? keys.data<int64_t>()[i] : keys.data<int32_t>()[i]);
}

bool ValuesEqual(const Tensor& a, int64_t i, const Tensor& b, int64_t j) {
  if (a.dtype() == DT_STRING) return a.data<std::string>()[i] == b.data<std::string>()[j];
  const size_t size = DataTypeSize(a.dtype());
  return std::memcmp(static_cast<const char*>(a.raw_data()) + static_cast<size_t>(i) * size,
                     static_cast<const char*>(b.raw_data()) + static_cast<size_t>(j) * size, size) == 0;
}

std::shared_ptr<HashTable> LookupTable(OpKernelContext* ctx) {
  return resource_handles::Lookup<HashTable>(ctx, 0, kKind);
}

bool CheckTypes(OpKernelContext* ctx, const HashTable& table, const Tensor& keys, const Tensor* values) {
  if (keys.dtype() != table.key_dtype) {
    FailInvalidArgument(ctx, "table ", table.name, " has ", DataTypeName(table.key_dtype), " keys, got ",
                        DataTypeName(keys.dtype()));
    return false;
  }
  if (values != nullptr && values->dtype() != table.value_dtype) {
    FailInvalidArgument(ctx, "table ", table.name, " has ", DataTypeName(table.value_dtype), " values, got ",
                        DataTypeName(values->dtype()));
    return false;
  }
  return true;
}

void MakeTableCompute(OpKernelContext* ctx, const std::string& container, const std::string& name, DataType key_dtype,
                      DataType value_dtype) {
  auto table = ctx->resource_mgr()->LookupOrCreate<HashTable>(
      container, name, [&] { return std::make_shared<HashTable>(key_dtype, value_dtype, name); });
  if (!table.ok()) return ctx->SetStatus(errors::Annotate(table.status(), StrCat("table '", name, "': ")));
  if ((*table)->key_dtype != key_dtype || (*table)->value_dtype != value_dtype)
    return FailInvalidArgument(ctx, "table '", name, "' already exists as ", (*table)->DebugString());
  ctx->set_output(0, resource_handles::MakeResourceHandle(container, name));
}

StatusOr<std::unique_ptr<OpKernel>> MakeHashTableKernel(OpKernelConstruction& c) {
  std::string container, name;
  DataType key_dtype = DT_INVALID, value_dtype = DT_INVALID;
  CLAB_RETURN_IF_ERROR(resource_handles::ResourceName(c, &container, &name));
  CLAB_RETURN_IF_ERROR(c.GetAttr("key_dtype", &key_dtype));
  CLAB_RETURN_IF_ERROR(c.GetAttr("value_dtype", &value_dtype));
  if (key_dtype != DT_STRING && key_dtype != DT_INT64 && key_dtype != DT_INT32)
    return errors::Unimplemented("Node '", c.name(), "' (op HashTableV2): keys of ", DataTypeName(key_dtype),
                                 " are not supported (string, int64, int32)");
  return LambdaKernel([container, name, key_dtype, value_dtype](
                          OpKernelContext* ctx) { MakeTableCompute(ctx, container, name, key_dtype, value_dtype); },
                      /*expensive=*/false)(c);
}

void ImportCompute(OpKernelContext* ctx) {
  auto table = LookupTable(ctx);
  if (!table) return;
  const Tensor& keys = ctx->input(1);
  const Tensor& values = ctx->input(2);
  if (!CheckTypes(ctx, *table, keys, &values)) return;
  if (keys.shape().rank() != 1 || !(values.shape() == keys.shape()))
    return FailInvalidArgument(ctx, "keys and values must be vectors of the same length, got ",
                               keys.shape().DebugString(), " and ", values.shape().DebugString());
  std::lock_guard<std::mutex> lock(table->mu);
  std::unordered_map<std::string, int64_t> index;
  for (int64_t i = 0; i < keys.NumElements(); ++i) {
    auto [at, fresh] = index.emplace(KeyBytes(keys, i), i);
    if (!fresh && !ValuesEqual(values, at->second, values, i))
      return ctx->SetStatus(errors::FailedPrecondition("HashTable ", table->name, " has different values for key ",
                                                       KeyText(keys, i), " (entries ", at->second, " and ", i, ")",
                                                       NodeSuffix(ctx->name())));
  }
  if (table->initialized) {
    bool same = index.size() == table->index.size();
    for (auto it = index.begin(); same && it != index.end(); ++it) {
      auto found = table->index.find(it->first);
      same = found != table->index.end() && ValuesEqual(values, it->second, table->values, found->second);
    }
    if (!same)
      ctx->SetStatus(errors::FailedPrecondition("Table ", table->name, " was already initialized with different data",
                                                NodeSuffix(ctx->name())));
    return;
  }
  table->keys = keys.DeepCopy();
  table->values = values.DeepCopy();
  table->index = std::move(index);
  table->initialized = true;
}

bool CheckInitialized(OpKernelContext* ctx, const HashTable& table) {
  if (table.initialized) return true;
  ctx->SetStatus(errors::FailedPrecondition("Table ", table.name,
                                            " is not initialized (run its initializer, e.g. tf.tables_initializer)",
                                            NodeSuffix(ctx->name())));
  return false;
}

void FindCompute(OpKernelContext* ctx) {
  auto table = LookupTable(ctx);
  if (!table) return;
  const Tensor& keys = ctx->input(1);
  const Tensor& fallback = ctx->input(2);
  if (!CheckTypes(ctx, *table, keys, &fallback)) return;
  const bool one_default = fallback.NumElements() == 1;
  if (!one_default && !(fallback.shape() == keys.shape()))
    return FailInvalidArgument(ctx, "default_value must be a scalar or shaped like the keys ",
                               keys.shape().DebugString(), ", got ", fallback.shape().DebugString());
  Tensor* out = ctx->allocate_output(0, table->value_dtype, keys.shape());
  if (out == nullptr) return;
  std::lock_guard<std::mutex> lock(table->mu);
  if (!CheckInitialized(ctx, *table)) return;
  for (int64_t i = 0, n = keys.NumElements(); i < n; ++i) {
    auto found = table->index.find(KeyBytes(keys, i));
    if (found == table->index.end()) {
      CopyElements(fallback, one_default ? 0 : i, out, i, 1);
    } else {
      CopyElements(table->values, found->second, out, i, 1);
    }
  }
}

void SizeCompute(OpKernelContext* ctx) {
  auto table = LookupTable(ctx);
  if (!table) return;
  std::lock_guard<std::mutex> lock(table->mu);
  ctx->set_output(0, Tensor::Scalar<int64_t>(static_cast<int64_t>(table->index.size())));
}

void ExportCompute(OpKernelContext* ctx) {
  auto table = LookupTable(ctx);
  if (!table) return;
  std::lock_guard<std::mutex> lock(table->mu);
  if (!table->initialized) {
    ctx->set_output(0, Tensor(table->key_dtype, TensorShape({0})));
    ctx->set_output(1, Tensor(table->value_dtype, TensorShape({0})));
    return;
  }
  // The first entry of each key (a repeated key with the same value is stored once).
  std::vector<int64_t> kept;
  for (int64_t i = 0; i < table->keys.NumElements(); ++i)
    if (table->index.at(KeyBytes(table->keys, i)) == i) kept.push_back(i);
  const auto n = static_cast<int64_t>(kept.size());
  Tensor* keys = ctx->allocate_output(0, table->key_dtype, TensorShape({n}));
  Tensor* values = ctx->allocate_output(1, table->value_dtype, TensorShape({n}));
  if (keys == nullptr || values == nullptr) return;
  for (int64_t j = 0; j < n; ++j) {
    CopyElements(table->keys, kept[static_cast<size_t>(j)], keys, j, 1);
    CopyElements(table->values, kept[static_cast<size_t>(j)], values, j, 1);
  }
}

Status NoOutputs(ShapeContext&) { return OkStatus(); }

}  // namespace

void RegisterLookupTableOps(OpRegistry& registry) {
  registry.Register("HashTableV2")
      .Output("table_handle: resource")
      .Attr("container: string = ''")
      .Attr("shared_name: string = ''")
      .Attr("use_node_name_sharing: bool = false")
      .Attr("key_dtype: type")
      .Attr("value_dtype: type")
      .Stateful()
      .SetShapeFn([](ShapeContext& c) {
        c.set_output(0, PartialShape({2}));
        return OkStatus();
      })
      .Kernel("CPU", MakeHashTableKernel)
      .Summary("A hash table of the device, created on first use; filled once by an initializer.")
      .Group("lookup");
  for (const char* name : {"LookupTableImportV2", "InitializeTableV2"}) {
    registry.Register(name)
        .Input("table_handle: resource")
        .Input("keys: Tin")
        .Input("values: Tout")
        .Attr("Tin: type")
        .Attr("Tout: type")
        .Stateful()
        .SetShapeFn(NoOutputs)
        .Kernel("CPU", LambdaKernel(ImportCompute))
        .Summary("Fills a table with keys and values (once; the same entries again are accepted).")
        .Group("lookup");
  }
  registry.Register("LookupTableFindV2")
      .Input("table_handle: resource")
      .Input("keys: Tin")
      .Input("default_value: Tout")
      .Output("values: Tout")
      .Attr("Tin: type")
      .Attr("Tout: type")
      .Stateful()
      .SetShapeFn([](ShapeContext& c) {
        c.set_output(0, c.input_shape(1));
        return OkStatus();
      })
      .Kernel("CPU", LambdaKernel(FindCompute))
      .Summary("The table's value for each key, default_value for keys it does not hold.")
      .Group("lookup");
  registry.Register("LookupTableSizeV2")
      .Input("table_handle: resource")
      .Output("size: int64")
      .Stateful()
      .SetShapeFn([](ShapeContext& c) {
        c.set_output(0, PartialShape::Scalar());
        return OkStatus();
      })
      .Kernel("CPU", LambdaKernel(SizeCompute, /*expensive=*/false))
      .Summary("The number of keys in a table.")
      .Group("lookup");
  registry.Register("LookupTableExportV2")
      .Input("table_handle: resource")
      .Output("keys: Tkeys")
      .Output("values: Tvalues")
      .Attr("Tkeys: type")
      .Attr("Tvalues: type")
      .Stateful()
      .SetShapeFn([](ShapeContext& c) {
        c.set_output(0, PartialShape({-1}));
        c.set_output(1, PartialShape({-1}));
        return OkStatus();
      })
      .Kernel("CPU", LambdaKernel(ExportCompute))
      .Summary("The keys and values a table holds.")
      .Group("lookup");
}

// Joins the built-in ops of OpRegistry::Global().
const OpFamily kLookupTableOpFamily("lookup table", RegisterLookupTableOps);

}  // namespace clab
