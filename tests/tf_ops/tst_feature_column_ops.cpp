// The ops of tf.feature_column's input layer and of the wide model's optimizer, each against
// values TensorFlow documents or its own tests print:
//   Fingerprint64 against FarmHash's published fingerprints (empty string to 1,000 bytes, so
//   every length class), StringToHashBucketFast ('a'..'d' into 10 buckets: 9, 2, 2, 5),
//   SparseCross's hashed ids (1971693436396284976 with the default key, 83 in 100 buckets,
//   4847552627144134031 with the key + 1);
//   Bucketize, SparseReshape, SparseFillEmptyRows, SparseToDense, SparseSegment{Sum,Mean,
//   SqrtN}(Grad), GatherNd, ScatterNd and the hash table ops against worked examples;
//   FTRL, Adadelta and the Sparse* updates against their formulas evaluated by hand;
// and the errors a bad input gets, each naming what is wrong.
#include "KernelTestUtil.h"
#include "StatusText.h"
#include "clab/core/Fingerprint.h"

#include <QtTest/QtTest>

using namespace clab;
using namespace clab::testing;

namespace {

constexpr int64_t kDefaultCrossKey = 0xDECAFCAFFE;  // sparse_ops' _DEFAULT_HASH_KEY

tensorflow::NodeDef Node(const std::string& op, int inputs, const std::map<std::string, tensorflow::AttrValue>& attrs) {
  std::vector<std::string> names;
  for (int i = 0; i < inputs; ++i) names.push_back("in" + std::to_string(i));
  return MakeNode("n", op, names, attrs);
}

Tensor Strings(const std::vector<std::string>& values) { return Tensor::Vector<std::string>(values); }

template <typename T>
std::vector<T> Flat(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.NumElements());
}

std::string Message(const Status& s) { return std::string(s.message()); }

tensorflow::AttrValue TypeList(const std::vector<DataType>& types) { return AttrOf(types); }

// SparseCross over rank-2 sparse string inputs, each one row of features.
StatusOr<std::vector<Tensor>> CrossRows(const std::vector<std::vector<std::string>>& columns, bool hashed,
                                        int64_t buckets, int64_t key) {
  std::vector<Tensor> indices, values, shapes;
  for (const auto& column : columns) {
    std::vector<std::vector<int64_t>> at;
    for (size_t j = 0; j < column.size(); ++j) at.push_back({0, static_cast<int64_t>(j)});
    indices.push_back(column.empty() ? Tensor(DT_INT64, TensorShape({0, 2})) : Tensor::Matrix<int64_t>(at));
    values.push_back(Strings(column));
    shapes.push_back(Tensor::Vector<int64_t>({1, static_cast<int64_t>(column.size())}));
  }
  std::vector<Tensor> inputs = indices;
  inputs.insert(inputs.end(), values.begin(), values.end());
  inputs.insert(inputs.end(), shapes.begin(), shapes.end());
  const auto n = static_cast<int64_t>(columns.size());
  return RunKernel(Node("SparseCross", static_cast<int>(inputs.size()),
                        {{"N", AttrOf(n)},
                         {"hashed_output", AttrOf(hashed)},
                         {"num_buckets", AttrOf(buckets)},
                         {"hash_key", AttrOf(key)},
                         {"sparse_types", TypeList(std::vector<DataType>(columns.size(), DT_STRING))},
                         {"dense_types", TypeList({})},
                         {"out_type", AttrOf(hashed ? DT_INT64 : DT_STRING)},
                         {"internal_type", AttrOf(hashed ? DT_INT64 : DT_STRING)}}),
                   inputs);
}

}  // namespace

class FeatureColumnOpsTest : public QObject {
  Q_OBJECT

 private slots:
  void fingerprintsAreFarmHashs() {
    const std::vector<std::pair<std::string, uint64_t>> known = {
        {"", 11160318154034397263ULL},
        {"a", 12917804110809363939ULL},
        {"b", 11795596070477164822ULL},
        {"hello", 13009744463427800296ULL},
        {"hello world", 6381520714923946011ULL},
        {"1234567890123456", 17239105360639788068ULL},
        {"The quick brown fox jumps over the lazy dog", 12375473906752639284ULL},
        {"session_20b9ed23-cc36-4177-8661-b2a6d4a71c18", 16528987318367749121ULL},
        {std::string(64, 'a'), 5893282057753879417ULL},
        {std::string(128, 'b'), 17638211491968783095ULL},
        {std::string(256, 'c'), 726802415163973935ULL},
        {std::string(512, 'd'), 11981075791954381165ULL},
        {std::string(1000, 'e'), 9485535561285839443ULL},
    };
    for (const auto& [text, fingerprint] : known)
      QVERIFY2(Fingerprint64(text) == fingerprint, qPrintable(QString("length %1").arg(text.size())));
  }

  void hashBucketsAreTensorFlows() {
    auto out = RunKernel(Node("StringToHashBucketFast", 1, {{"num_buckets", AttrOf(int64_t{10})}}),
                         {Tensor::Matrix<std::string>({{"a", "b"}, {"c", "d"}})});
    QVERIFY2(out.ok(), StatusText(out.status()));
    QVERIFY((*out)[0].Equals(Tensor::Matrix<int64_t>({{9, 2}, {2, 5}})));
    auto zero = RunKernel(Node("StringToHashBucketFast", 1, {{"num_buckets", AttrOf(int64_t{0})}}), {Strings({"a"})});
    QVERIFY(!zero.ok());
    QVERIFY2(Message(zero.status()).find("num_buckets") != std::string::npos, StatusText(zero.status()));
  }

  void bucketizeCountsBoundariesAtOrBelow() {
    tensorflow::AttrValue boundaries;
    for (float b : {0.f, 10.f, 100.f}) boundaries.mutable_list()->add_f(b);
    auto out = RunKernel(Node("Bucketize", 1, {{"T", AttrOf(DT_INT32)}, {"boundaries", boundaries}}),
                         {Tensor::Matrix<int32_t>({{-5, 10000}, {150, 10}, {5, 100}})});
    QVERIFY2(out.ok(), StatusText(out.status()));
    QVERIFY((*out)[0].Equals(Tensor::Matrix<int32_t>({{0, 3}, {3, 2}, {1, 3}})));
    tensorflow::AttrValue unsorted;
    for (float b : {1.f, 0.f}) unsorted.mutable_list()->add_f(b);
    auto bad = RunKernel(Node("Bucketize", 1, {{"T", AttrOf(DT_FLOAT)}, {"boundaries", unsorted}}),
                         {Tensor::Vector<float>({1})});
    QVERIFY(!bad.ok());
    QVERIFY2(Message(bad.status()).find("sorted") != std::string::npos, StatusText(bad.status()));
  }

  void hashedCrossesAreTensorFlows() {
    const std::vector<std::vector<std::string>> one = {{"batch1-FC1-F1"}, {"batch1-FC2-F1"}, {"batch1-FC3-F1"}};
    for (const auto& [buckets, key, expected] :
         std::vector<std::tuple<int64_t, int64_t, int64_t>>{{0, kDefaultCrossKey, 1971693436396284976LL},
                                                            {100, kDefaultCrossKey, 83},
                                                            {0, kDefaultCrossKey + 1, 4847552627144134031LL}}) {
      auto out = CrossRows(one, true, buckets, key);
      QVERIFY2(out.ok(), StatusText(out.status()));
      QVERIFY((*out)[0].Equals(Tensor::Matrix<int64_t>({{0, 0}})));
      QCOMPARE(Flat<int64_t>((*out)[1]), std::vector<int64_t>{expected});
      QCOMPARE(Flat<int64_t>((*out)[2]), (std::vector<int64_t>{1, 1}));
    }
  }

  void stringCrossesJoinEveryCombination() {
    auto out = CrossRows({{"a", "b"}, {"x", "y", "z"}}, false, 0, 0);
    QVERIFY2(out.ok(), StatusText(out.status()));
    // The last column varies fastest.
    QCOMPARE(Flat<std::string>((*out)[1]),
             (std::vector<std::string>{"a_X_x", "a_X_y", "a_X_z", "b_X_x", "b_X_y", "b_X_z"}));
    QCOMPARE(Flat<int64_t>((*out)[2]), (std::vector<int64_t>{1, 6}));
    // A column without features in a row leaves the row empty.
    auto empty = CrossRows({{"a"}, {}}, false, 0, 0);
    QVERIFY2(empty.ok(), StatusText(empty.status()));
    QCOMPARE((*empty)[1].NumElements(), int64_t{0});
  }

  void crossOfSparseAndDenseIntegerColumns() {
    // Row 0: sparse {3}, dense {"p", "q"}; row 1: sparse {} -> nothing.
    const Tensor indices = Tensor::Matrix<int64_t>({{0, 0}});
    const Tensor values = Tensor::Vector<int64_t>({3});
    const Tensor shape = Tensor::Vector<int64_t>({2, 1});
    const Tensor dense = Tensor::Matrix<std::string>({{"p", "q"}, {"r", "s"}});
    auto out = RunKernel(Node("SparseCross", 4,
                              {{"N", AttrOf(int64_t{1})},
                               {"hashed_output", AttrOf(false)},
                               {"num_buckets", AttrOf(int64_t{0})},
                               {"hash_key", AttrOf(int64_t{0})},
                               {"sparse_types", TypeList({DT_INT64})},
                               {"dense_types", TypeList({DT_STRING})},
                               {"out_type", AttrOf(DT_STRING)},
                               {"internal_type", AttrOf(DT_STRING)}}),
                         {indices, values, shape, dense});
    QVERIFY2(out.ok(), StatusText(out.status()));
    QCOMPARE(Flat<std::string>((*out)[1]), (std::vector<std::string>{"3_X_p", "3_X_q"}));
    QVERIFY((*out)[0].Equals(Tensor::Matrix<int64_t>({{0, 0}, {0, 1}})));
    QCOMPARE(Flat<int64_t>((*out)[2]), (std::vector<int64_t>{2, 2}));
  }

  void sparseReshapeKeepsEachEntrysPlace() {
    const Tensor indices = Tensor::Matrix<int64_t>({{0, 0, 0}, {0, 0, 1}, {0, 1, 0}, {1, 0, 0}, {1, 2, 3}});
    auto out = RunKernel(Node("SparseReshape", 3, {}),
                         {indices, Tensor::Vector<int64_t>({2, 3, 6}), Tensor::Vector<int64_t>({9, -1})});
    QVERIFY2(out.ok(), StatusText(out.status()));
    QVERIFY((*out)[0].Equals(Tensor::Matrix<int64_t>({{0, 0}, {0, 1}, {1, 2}, {4, 2}, {8, 1}})));
    QCOMPARE(Flat<int64_t>((*out)[1]), (std::vector<int64_t>{9, 4}));
    auto bad = RunKernel(Node("SparseReshape", 3, {}),
                         {indices, Tensor::Vector<int64_t>({2, 3, 6}), Tensor::Vector<int64_t>({7, -1})});
    QVERIFY(!bad.ok());
    QVERIFY2(Message(bad.status()).find("36 dense values") != std::string::npos, StatusText(bad.status()));
    auto outside =
        RunKernel(Node("SparseReshape", 3, {}),
                  {Tensor::Matrix<int64_t>({{0, 7}}), Tensor::Vector<int64_t>({2, 3}), Tensor::Vector<int64_t>({6})});
    QVERIFY(!outside.ok());
    QVERIFY2(Message(outside.status()).find("out of bounds") != std::string::npos, StatusText(outside.status()));
  }

  void fillEmptyRowsGroupsByRow() {
    const Tensor indices = Tensor::Matrix<int64_t>({{1, 0}, {0, 0}, {1, 3}, {1, 4}, {3, 2}, {3, 3}});
    auto out = RunKernel(Node("SparseFillEmptyRows", 4, {{"T", AttrOf(DT_INT64)}}),
                         {indices, Tensor::Vector<int64_t>({10, 0, 13, 14, 32, 33}), Tensor::Vector<int64_t>({5, 6}),
                          Tensor::Scalar<int64_t>(-1)});
    QVERIFY2(out.ok(), StatusText(out.status()));
    QVERIFY(
        (*out)[0].Equals(Tensor::Matrix<int64_t>({{0, 0}, {1, 0}, {1, 3}, {1, 4}, {2, 0}, {3, 2}, {3, 3}, {4, 0}})));
    QCOMPARE(Flat<int64_t>((*out)[1]), (std::vector<int64_t>{0, 10, 13, 14, -1, 32, 33, -1}));
    QCOMPARE(Flat<bool>((*out)[2]), (std::vector<bool>{false, false, true, false, true}));
    QCOMPARE(Flat<int64_t>((*out)[3]), (std::vector<int64_t>{1, 0, 2, 3, 5, 6}));
    // Its gradient: each value's gradient by the map, the rest to the default.
    auto grad = RunKernel(Node("SparseFillEmptyRowsGrad", 2, {{"T", AttrOf(DT_FLOAT)}}),
                          {(*out)[3], Tensor::Vector<float>({1, 2, 3, 4, 5, 6, 7, 8})});
    QVERIFY2(grad.ok(), StatusText(grad.status()));
    QCOMPARE(Flat<float>((*grad)[0]), (std::vector<float>{2, 1, 3, 4, 6, 7}));
    QCOMPARE((*grad)[1].scalar<float>(), 13.f);
    auto bad = RunKernel(Node("SparseFillEmptyRows", 4, {{"T", AttrOf(DT_INT64)}}),
                         {Tensor::Matrix<int64_t>({{5, 0}}), Tensor::Vector<int64_t>({1}),
                          Tensor::Vector<int64_t>({5, 6}), Tensor::Scalar<int64_t>(0)});
    QVERIFY(!bad.ok());
    QVERIFY2(Message(bad.status()).find("indices[0, 0] = 5") != std::string::npos, StatusText(bad.status()));
  }

  void rowCountsFromInputsAreHeldToTheTensorLimit() {
    // A dense shape of 10^15 rows with one entry: refused before per-row memory is taken.
    auto fill = RunKernel(Node("SparseFillEmptyRows", 4, {{"T", AttrOf(DT_INT64)}}),
                          {Tensor::Matrix<int64_t>({{0, 0}}), Tensor::Vector<int64_t>({1}),
                           Tensor::Vector<int64_t>({1000000000000000LL, 6}), Tensor::Scalar<int64_t>(0)});
    QVERIFY(!fill.ok());
    QVERIFY2(Message(fill.status()).find("dense_shape[0]") != std::string::npos, StatusText(fill.status()));
    auto cross = RunKernel(
        Node("SparseCross", 3,
             {{"N", AttrOf(int64_t{1})},
              {"hashed_output", AttrOf(true)},
              {"num_buckets", AttrOf(int64_t{10})},
              {"hash_key", AttrOf(kDefaultCrossKey)},
              {"sparse_types", TypeList({DT_STRING})},
              {"dense_types", TypeList({})},
              {"out_type", AttrOf(DT_INT64)},
              {"internal_type", AttrOf(DT_INT64)}}),
        {Tensor::Matrix<int64_t>({{0, 0}}), Strings({"a"}), Tensor::Vector<int64_t>({1000000000000000LL, 1})});
    QVERIFY(!cross.ok());
    QVERIFY2(Message(cross.status()).find("shapes[0][0]") != std::string::npos, StatusText(cross.status()));
  }

  void sparseToDenseWritesEntriesAndChecksOrder() {
    const auto node = Node("SparseToDense", 4, {{"T", AttrOf(DT_FLOAT)}, {"Tindices", AttrOf(DT_INT64)}});
    auto out = RunKernel(node, {Tensor::Matrix<int64_t>({{0, 1}, {1, 2}}), Tensor::Vector<int64_t>({2, 3}),
                                Tensor::Vector<float>({5, 6}), Tensor::Scalar<float>(-1)});
    QVERIFY2(out.ok(), StatusText(out.status()));
    QVERIFY((*out)[0].Equals(Tensor::Matrix<float>({{-1, 5, -1}, {-1, -1, 6}})));
    auto one_value = RunKernel(node, {Tensor::Vector<int64_t>({0, 3}), Tensor::Vector<int64_t>({4}),
                                      Tensor::Scalar<float>(1), Tensor::Scalar<float>(0)});
    QVERIFY2(one_value.ok(), StatusText(one_value.status()));
    QCOMPARE(Flat<float>((*one_value)[0]), (std::vector<float>{1, 0, 0, 1}));
    for (const auto& [indices, expected] :
         std::vector<std::pair<Tensor, std::string>>{{Tensor::Matrix<int64_t>({{1, 2}, {0, 1}}), "out of order"},
                                                     {Tensor::Matrix<int64_t>({{0, 1}, {0, 1}}), "repeated"},
                                                     {Tensor::Matrix<int64_t>({{0, 1}, {2, 0}}), "out of bounds"}}) {
      auto bad = RunKernel(
          node, {indices, Tensor::Vector<int64_t>({2, 3}), Tensor::Vector<float>({5, 6}), Tensor::Scalar<float>(0)});
      QVERIFY(!bad.ok());
      QVERIFY2(Message(bad.status()).find(expected) != std::string::npos, StatusText(bad.status()));
    }
  }

  void sparseSegmentReductionsAndMeanGradient() {
    const Tensor data = Tensor::Matrix<float>({{1, 2}, {-1, -2}, {5, 8}});
    const Tensor indices = Tensor::Vector<int32_t>({0, 1, 2, 2});
    const Tensor ids = Tensor::Vector<int32_t>({0, 0, 2, 2});  // segment 1 has no rows
    const std::map<std::string, tensorflow::AttrValue> attrs = {{"T", AttrOf(DT_FLOAT)}};
    auto sum = RunKernel(Node("SparseSegmentSum", 3, attrs), {data, indices, ids});
    QVERIFY2(sum.ok(), StatusText(sum.status()));
    QVERIFY((*sum)[0].Equals(Tensor::Matrix<float>({{0, 0}, {0, 0}, {10, 16}})));
    auto mean = RunKernel(Node("SparseSegmentMean", 3, attrs), {data, indices, ids});
    QVERIFY2(mean.ok(), StatusText(mean.status()));
    QVERIFY((*mean)[0].Equals(Tensor::Matrix<float>({{0, 0}, {0, 0}, {5, 8}})));
    auto sqrt_n = RunKernel(Node("SparseSegmentSqrtN", 3, attrs), {data, indices, ids});
    QVERIFY2(sqrt_n.ok(), StatusText(sqrt_n.status()));
    QVERIFY(std::abs(Flat<float>((*sqrt_n)[0])[4] - 10 / std::sqrt(2.f)) < 1e-5f);
    auto grad = RunKernel(Node("SparseSegmentMeanGrad", 4, attrs),
                          {Tensor::Matrix<float>({{2, 4}, {0, 0}, {6, 8}}), indices, ids, Tensor::Scalar<int32_t>(4)});
    QVERIFY2(grad.ok(), StatusText(grad.status()));
    // Rows 0 and 1 share segment 0 (half each); row 2 is picked twice in segment 2.
    QVERIFY((*grad)[0].Equals(Tensor::Matrix<float>({{1, 2}, {1, 2}, {6, 8}, {0, 0}})));
    auto unsorted = RunKernel(Node("SparseSegmentSum", 3, attrs),
                              {data, Tensor::Vector<int32_t>({0, 1}), Tensor::Vector<int32_t>({1, 0})});
    QVERIFY(!unsorted.ok());
    QVERIFY2(Message(unsorted.status()).find("not increasing") != std::string::npos, StatusText(unsorted.status()));
    auto outside = RunKernel(Node("SparseSegmentSum", 3, attrs),
                             {data, Tensor::Vector<int32_t>({3}), Tensor::Vector<int32_t>({0})});
    QVERIFY(!outside.ok());
    QVERIFY2(Message(outside.status()).find("indices[0] = 3") != std::string::npos, StatusText(outside.status()));
  }

  void gatherNdAndScatterNd() {
    const Tensor params = Tensor::Matrix<int32_t>({{1, 2}, {3, 4}});
    const std::map<std::string, tensorflow::AttrValue> attrs = {{"Tparams", AttrOf(DT_INT32)},
                                                                {"Tindices", AttrOf(DT_INT64)}};
    auto points = RunKernel(Node("GatherNd", 2, attrs), {params, Tensor::Matrix<int64_t>({{0, 0}, {1, 1}})});
    QVERIFY2(points.ok(), StatusText(points.status()));
    QCOMPARE(Flat<int32_t>((*points)[0]), (std::vector<int32_t>{1, 4}));
    auto rows = RunKernel(Node("GatherNd", 2, attrs), {params, Tensor::Matrix<int64_t>({{1}, {0}})});
    QVERIFY2(rows.ok(), StatusText(rows.status()));
    QVERIFY((*rows)[0].Equals(Tensor::Matrix<int32_t>({{3, 4}, {1, 2}})));
    auto bad = RunKernel(Node("GatherNd", 2, attrs), {params, Tensor::Matrix<int64_t>({{0, 2}})});
    QVERIFY(!bad.ok());
    QVERIFY2(Message(bad.status()).find("indices[0, 1] = 2") != std::string::npos, StatusText(bad.status()));
    auto scatter = RunKernel(Node("ScatterNd", 3, {{"T", AttrOf(DT_FLOAT)}, {"Tindices", AttrOf(DT_INT32)}}),
                             {Tensor::Matrix<int32_t>({{4}, {3}, {1}, {7}, {1}}),
                              Tensor::Vector<float>({9, 10, 11, 12, 1}), Tensor::Vector<int32_t>({8})});
    QVERIFY2(scatter.ok(), StatusText(scatter.status()));
    QCOMPARE(Flat<float>((*scatter)[0]), (std::vector<float>{0, 12, 0, 10, 9, 0, 0, 12}));
  }

  void hashTableFillsOnceAndLooksUp() {
    TestCpuDevice()->resource_mgr()->Clear();
    auto made = RunKernel(
        MakeNode("vocab", "HashTableV2", {}, {{"key_dtype", AttrOf(DT_STRING)}, {"value_dtype", AttrOf(DT_INT64)}}),
        {});
    QVERIFY2(made.ok(), StatusText(made.status()));
    const Tensor handle = (*made)[0];
    const std::map<std::string, tensorflow::AttrValue> types = {{"Tin", AttrOf(DT_STRING)}, {"Tout", AttrOf(DT_INT64)}};
    const Tensor keys = Strings({"brain", "salad", "surgery"});
    const Tensor values = Tensor::Vector<int64_t>({0, 1, 2});
    auto early = RunKernel(Node("LookupTableFindV2", 3, types), {handle, keys, Tensor::Scalar<int64_t>(-1)});
    QVERIFY(!early.ok());
    QVERIFY2(Message(early.status()).find("not initialized") != std::string::npos, StatusText(early.status()));
    auto fill = RunKernel(Node("LookupTableImportV2", 3, types), {handle, keys, values});
    QVERIFY2(fill.ok(), StatusText(fill.status()));
    auto again = RunKernel(Node("InitializeTableV2", 3, types), {handle, keys, values});
    QVERIFY2(again.ok(), StatusText(again.status()));
    auto different =
        RunKernel(Node("LookupTableImportV2", 3, types), {handle, keys, Tensor::Vector<int64_t>({0, 1, 3})});
    QVERIFY(!different.ok());
    QVERIFY2(Message(different.status()).find("different data") != std::string::npos, StatusText(different.status()));
    auto found = RunKernel(
        Node("LookupTableFindV2", 3, types),
        {handle, Tensor::Matrix<std::string>({{"salad", "tank"}, {"brain", "surgery"}}), Tensor::Scalar<int64_t>(-1)});
    QVERIFY2(found.ok(), StatusText(found.status()));
    QVERIFY((*found)[0].Equals(Tensor::Matrix<int64_t>({{1, -1}, {0, 2}})));
    auto size = RunKernel(Node("LookupTableSizeV2", 1, {}), {handle});
    QVERIFY2(size.ok(), StatusText(size.status()));
    QCOMPARE((*size)[0].scalar<int64_t>(), int64_t{3});
    auto exported = RunKernel(
        Node("LookupTableExportV2", 1, {{"Tkeys", AttrOf(DT_STRING)}, {"Tvalues", AttrOf(DT_INT64)}}), {handle});
    QVERIFY2(exported.ok(), StatusText(exported.status()));
    QVERIFY((*exported)[0].Equals(keys));
    QVERIFY((*exported)[1].Equals(values));
    auto wrong_type = RunKernel(Node("LookupTableFindV2", 3, {{"Tin", AttrOf(DT_INT64)}, {"Tout", AttrOf(DT_INT64)}}),
                                {handle, Tensor::Vector<int64_t>({1}), Tensor::Scalar<int64_t>(-1)});
    QVERIFY(!wrong_type.ok());
    QVERIFY2(Message(wrong_type.status()).find("string keys") != std::string::npos, StatusText(wrong_type.status()));
  }

  void tableRefusesAKeyWithTwoValues() {
    TestCpuDevice()->resource_mgr()->Clear();
    auto made = RunKernel(
        MakeNode("ids", "HashTableV2", {}, {{"key_dtype", AttrOf(DT_INT64)}, {"value_dtype", AttrOf(DT_FLOAT)}}), {});
    QVERIFY2(made.ok(), StatusText(made.status()));
    auto fill = RunKernel(Node("LookupTableImportV2", 3, {{"Tin", AttrOf(DT_INT64)}, {"Tout", AttrOf(DT_FLOAT)}}),
                          {(*made)[0], Tensor::Vector<int64_t>({7, 7}), Tensor::Vector<float>({1, 2})});
    QVERIFY(!fill.ok());
    QVERIFY2(Message(fill.status()).find("key 7") != std::string::npos, StatusText(fill.status()));
  }

  void ftrlFollowsItsFormula() {
    auto var = std::make_shared<Variable>(DT_FLOAT, PartialShape({2}));
    auto accum = std::make_shared<Variable>(DT_FLOAT, PartialShape({2}));
    auto linear = std::make_shared<Variable>(DT_FLOAT, PartialShape({2}));
    var->value() = Tensor::Vector<float>({1, -2});
    accum->value() = Tensor::Vector<float>({0.1f, 0.1f});
    linear->value() = Tensor::Vector<float>({0, 0.5f});
    std::vector<EdgeValue> inputs = {RefInput(var), RefInput(accum), RefInput(linear)};
    for (const Tensor& t : {Tensor::Vector<float>({0.5f, -0.25f}), Tensor::Scalar<float>(0.1f),
                            Tensor::Scalar<float>(0.01f), Tensor::Scalar<float>(0.02f), Tensor::Scalar<float>(-0.5f)})
      inputs.push_back(ValueInputs({t})[0]);
    auto out = RunKernelOnEdges(Node("ApplyFtrl", 8, {{"T", AttrOf(DT_FLOAT)}}), inputs);
    QVERIFY2(out.ok(), StatusText(out.status()));
    // By hand: new_accum = accum + g^2; linear += g - (sqrt(new_accum) - sqrt(accum)) / lr * var;
    // var = (sign(linear) * l1 - linear) / (sqrt(new_accum) / lr + 2 * l2).
    const std::vector<double> want_var = {0.3767246586081718, -0.48578723226369563};
    const std::vector<double> want_linear = {-2.253802122931236, 1.9877024279617914};
    for (int i = 0; i < 2; ++i) {
      QVERIFY(std::abs(var->value().data<float>()[i] - want_var[static_cast<size_t>(i)]) < 1e-5);
      QVERIFY(std::abs(linear->value().data<float>()[i] - want_linear[static_cast<size_t>(i)]) < 1e-5);
    }
    QCOMPARE(Flat<float>(accum->value()), (std::vector<float>{0.35f, 0.1625f}));
  }

  void adadeltaFollowsItsFormula() {
    auto var = std::make_shared<Variable>(DT_DOUBLE, PartialShape({1}));
    auto accum = std::make_shared<Variable>(DT_DOUBLE, PartialShape({1}));
    auto update = std::make_shared<Variable>(DT_DOUBLE, PartialShape({1}));
    var->value() = Tensor::Vector<double>({1.0});
    accum->value() = Tensor::Vector<double>({0.2});
    update->value() = Tensor::Vector<double>({0.3});
    std::vector<EdgeValue> inputs = {RefInput(var), RefInput(accum), RefInput(update)};
    for (const Tensor& t : {Tensor::Scalar<double>(0.5), Tensor::Scalar<double>(0.9), Tensor::Scalar<double>(1e-6),
                            Tensor::Vector<double>({0.4})})
      inputs.push_back(ValueInputs({t})[0]);
    auto out = RunKernelOnEdges(Node("ApplyAdadelta", 7, {{"T", AttrOf(DT_DOUBLE)}}), inputs);
    QVERIFY2(out.ok(), StatusText(out.status()));
    QVERIFY(std::abs(var->value().data<double>()[0] - 0.7525643891670853) < 1e-12);
    QVERIFY(std::abs(accum->value().data<double>()[0] - 0.196) < 1e-12);
    QVERIFY(std::abs(update->value().data<double>()[0] - 0.29448975260330307) < 1e-12);
  }

  void sparseAdagradUpdatesOnlyItsRows() {
    auto var = std::make_shared<Variable>(DT_FLOAT, PartialShape({3, 2}));
    auto accum = std::make_shared<Variable>(DT_FLOAT, PartialShape({3, 2}));
    var->value() = Tensor::Matrix<float>({{1, 1}, {1, 1}, {1, 1}});
    accum->value() = Tensor::Matrix<float>({{0, 0}, {0, 0}, {0, 0}});
    const auto node = Node("SparseApplyAdagrad", 5, {{"T", AttrOf(DT_FLOAT)}, {"Tindices", AttrOf(DT_INT32)}});
    std::vector<EdgeValue> inputs = {RefInput(var), RefInput(accum)};
    for (const Tensor& t :
         {Tensor::Scalar<float>(0.5f), Tensor::Matrix<float>({{2, 4}, {1, 1}}), Tensor::Vector<int32_t>({2, 0})})
      inputs.push_back(ValueInputs({t})[0]);
    auto out = RunKernelOnEdges(node, inputs);
    QVERIFY2(out.ok(), StatusText(out.status()));
    // accum = g^2 on rows 2 and 0; var -= 0.5 * g / sqrt(accum) = 0.5 on each updated element.
    QVERIFY(accum->value().Equals(Tensor::Matrix<float>({{1, 1}, {0, 0}, {4, 16}})));
    QVERIFY(var->value().Equals(Tensor::Matrix<float>({{0.5f, 0.5f}, {1, 1}, {0.5f, 0.5f}})));
    inputs[4] = ValueInputs({Tensor::Vector<int32_t>({2, 3})})[0];
    auto bad = RunKernelOnEdges(node, inputs);
    QVERIFY(!bad.ok());
    QVERIFY2(Message(bad.status()).find("indices[1] = 3") != std::string::npos, StatusText(bad.status()));
  }
};

QTEST_APPLESS_MAIN(FeatureColumnOpsTest)
#include "tst_feature_column_ops.moc"
