// The kernels of the ops TensorFlow-written graphs need most, checked against numpy: each
// case of numpy_cases.py (written into CLAB_NUMPY_CASES by the CTest fixture
// tf_ops_numpy_cases) runs one op alone on its inputs and compares every output (and every
// variable an optimizer op updates) with the value numpy computed: shapes equal, integers
// and bools exactly, floats to a relative 1e-5 with NaN where numpy has NaN.
#include "KernelTestUtil.h"
#include "formats/NpyFile.h"

#include <absl/strings/str_split.h>
#include <QCoreApplication>
#include <QDir>
#include <QtTest/QtTest>

#include <cmath>
#include <fstream>
#include <string>

using namespace clab;
using namespace clab::testing;

namespace {

struct Case {
  std::string name, op, attrs;
  std::vector<std::string> inputs, expected;
};

std::string CasesDir() { return qEnvironmentVariable("CLAB_NUMPY_CASES").toStdString(); }

std::vector<Case> ReadCases() {
  std::vector<Case> cases;
  std::ifstream file(CasesDir() + "/cases.tsv");
  std::string line;
  while (std::getline(file, line)) {
    std::vector<std::string> cells = absl::StrSplit(line, '\t');
    if (cells.size() != 5) continue;
    cases.push_back({cells[0], cells[1], cells[2], absl::StrSplit(cells[3], ',', absl::SkipEmpty()),
                     absl::StrSplit(cells[4], ',', absl::SkipEmpty())});
  }
  return cases;
}

// "keep_dims=b:1 squeeze_dims=li:2 data_format=s:NCHW Tidx=type:float alpha=f:0.1"
Status AddAttrs(const std::string& spec, tensorflow::NodeDef* node) {
  if (spec == "-") return OkStatus();
  for (absl::string_view item : absl::StrSplit(spec, ' ', absl::SkipEmpty())) {
    const size_t eq = item.find('='), colon = item.find(':');
    if (eq == absl::string_view::npos || colon == absl::string_view::npos) return errors::InvalidArgument(item);
    const std::string key(item.substr(0, eq)), kind(item.substr(eq + 1, colon - eq - 1));
    const std::string value(item.substr(colon + 1));
    auto& attr = (*node->mutable_attr())[key];
    if (kind == "i") attr = AttrOf(static_cast<int64_t>(std::stoll(value)));
    else if (kind == "b") attr = AttrOf(value == "1");
    else if (kind == "f") attr = AttrOf(std::stof(value));
    else if (kind == "s") attr = AttrOf(value);
    else if (kind == "type") attr = AttrOf(value == "float" ? DT_FLOAT : value == "int64" ? DT_INT64 : DT_INT32);
    else if (kind == "li") {
      std::vector<int64_t> list;
      for (absl::string_view v : absl::StrSplit(value, ',')) list.push_back(std::stoll(std::string(v)));
      attr = AttrOf(list);
    } else {
      return errors::InvalidArgument("attr kind ", kind);
    }
  }
  return OkStatus();
}

// Sets the type attrs the op's inputs name from the inputs' dtypes ("T", "Tidx", "Index").
void InferTypeAttrs(const OpDef& op, const std::vector<Tensor>& inputs, tensorflow::NodeDef* node) {
  size_t at = 0;
  for (const ArgDef& arg : op.inputs) {
    int64_t count = 1;
    if (!arg.number_attr.empty()) GetNodeAttr(*node, arg.number_attr, &count).IgnoreError();
    if (at < inputs.size() && !arg.type_attr.empty() && !node->attr().count(arg.type_attr))
      (*node->mutable_attr())[arg.type_attr] = AttrOf(inputs[at].dtype());
    at += static_cast<size_t>(count);
  }
}

QString Compare(const Tensor& got, const Tensor& want) {
  if (got.dtype() != want.dtype())
    return QString("dtype %1, numpy %2").arg(DataTypeName(got.dtype()).c_str(), DataTypeName(want.dtype()).c_str());
  if (!(got.shape() == want.shape()))
    return QString("shape %1, numpy %2").arg(got.shape().DebugString().c_str(), want.shape().DebugString().c_str());
  for (int64_t i = 0; i < got.NumElements(); ++i) {
    double g = 0, w = 0;
    if (got.dtype() == DT_BOOL) {
      g = got.data<bool>()[i];
      w = want.data<bool>()[i];
    } else {
      CLAB_SWITCH_REAL_TYPES(got.dtype(), T,
                             (g = static_cast<double>(got.data<T>()[i]), w = static_cast<double>(want.data<T>()[i])),
                             return "unexpected dtype");
    }
    const bool same =
        (std::isnan(g) && std::isnan(w)) || g == w ||
        (got.dtype() == DT_FLOAT || got.dtype() == DT_DOUBLE ? std::abs(g - w) <= 1e-5 * std::abs(w) + 1e-6 : false);
    if (!same) return QString("element %1 is %2, numpy %3").arg(i).arg(g, 0, 'g', 9).arg(w, 0, 'g', 9);
  }
  return {};
}

}  // namespace

class TfOpsNumpyTest : public QObject {
  Q_OBJECT

 private slots:
  void kernelMatchesNumpy_data() {
    QTest::addColumn<int>("index");
    if (CasesDir().empty()) QSKIP("CLAB_NUMPY_CASES is not set (the tf_ops_numpy_cases fixture writes the cases)");
    const std::vector<Case> cases = ReadCases();
    if (cases.empty()) QSKIP("no cases: python3-numpy is missing or numpy_cases.py did not run");
    for (size_t i = 0; i < cases.size(); ++i) QTest::newRow(cases[i].name.c_str()) << static_cast<int>(i);
  }

  void kernelMatchesNumpy() {
    QFETCH(int, index);
    const Case c = ReadCases()[static_cast<size_t>(index)];
    tensorflow::NodeDef node = MakeNode(c.name, c.op);
    QVERIFY2(AddAttrs(c.attrs, &node).ok(), c.attrs.c_str());
    std::vector<Tensor> values;
    std::vector<EdgeValue> edges;
    std::vector<std::shared_ptr<Variable>> variables;
    for (const std::string& input : c.inputs) {
      const bool ref = input[0] == '&';
      auto value = tools::NpyFile::Read(CasesDir() + "/" + input.substr(ref ? 1 : 0));
      QVERIFY2(value.ok(), std::string(value.status().message()).c_str());
      values.push_back(*value);
      node.add_input("in" + std::to_string(edges.size()));
      if (ref) {
        variables.push_back(std::make_shared<Variable>(value->dtype(), PartialShape(value->shape())));
        variables.back()->value() = *value;
        edges.push_back(RefInput(variables.back()));
      } else {
        edges.push_back(ValueInputs({*value})[0]);
      }
    }
    const OpDef* op = OpRegistry::Global().Find(c.op);
    QVERIFY2(op != nullptr, c.op.c_str());
    InferTypeAttrs(*op, values, &node);
    auto outputs = RunKernelOnEdges(node, edges);
    QVERIFY2(outputs.ok(), std::string(outputs.status().message()).c_str());
    std::vector<Tensor> got;
    for (const EdgeValue& out : *outputs) {
      if (out.ref) {
        std::lock_guard<std::mutex> lock(out.ref->mu());
        got.push_back(out.ref->value());
      } else {
        got.push_back(out.tensor);
      }
    }
    for (const auto& var : variables) got.push_back(var->value());
    QCOMPARE(got.size(), c.expected.size());
    for (size_t k = 0; k < got.size(); ++k) {
      auto want = tools::NpyFile::Read(CasesDir() + "/" + c.expected[k]);
      QVERIFY2(want.ok(), std::string(want.status().message()).c_str());
      const QString difference = Compare(got[k], *want);
      QVERIFY2(difference.isEmpty(),
               qPrintable(QString("%1 output %2: %3").arg(c.name.c_str()).arg(k).arg(difference)));
    }
  }

  // The .npy reader and writer agree with each other and with numpy's header spelling.
  void npyRoundTrip() {
    const QString dir =
        QDir::temp().filePath("clab-npy-roundtrip-" + QString::number(QCoreApplication::applicationPid()));
    QDir().mkpath(dir);
    const std::string path = (dir + "/m.npy").toStdString();
    const Tensor m = Tensor::Matrix<float>({{1, 2, 3}, {4, 5, 6}});
    QVERIFY(tools::NpyFile::Write(path, m).ok());
    auto back = tools::NpyFile::Read(path);
    QVERIFY(back.ok());
    QVERIFY(Compare(*back, m).isEmpty());
    QVERIFY(!tools::NpyFile::Parse("not numpy", "x").ok());
    QDir(dir).removeRecursively();
  }
};

QTEST_GUILESS_MAIN(TfOpsNumpyTest)
#include "tst_tf_ops_numpy.moc"
