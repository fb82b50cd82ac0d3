#include "models/Classifier.h"

#include "clab/io/CsvTable.h"
#include "clab/ops/Ops.h"
#include "models/MinibatchSampler.h"

#include <algorithm>
#include <cmath>

namespace clab::examples {
Examples Rows(const Examples& data, const std::vector<int64_t>& rows) {
  const int64_t d = data.features.shape().dim(1);
  Examples out{Tensor(DT_FLOAT, TensorShape({static_cast<int64_t>(rows.size()), d})),
               Tensor(DT_INT32, TensorShape({static_cast<int64_t>(rows.size())}))};
  for (size_t i = 0; i < rows.size(); ++i) {
    std::copy_n(data.features.data<float>() + rows[i] * d, d, out.features.data<float>() + static_cast<int64_t>(i) * d);
    out.labels.data<int32_t>()[i] = data.labels.data<int32_t>()[rows[i]];
  }
  return out;
}

StatusOr<ClassificationData> LoadClassificationCsv(const std::string& path, int held_out_every) {
  CLAB_ASSIGN_OR_RETURN(CsvTable table, ReadCsvTable(path));
  if (table.columns.size() < 2 || table.rows.empty())
    return errors::InvalidArgument("'", path, "' needs feature columns, a class column and rows");
  const int d = static_cast<int>(table.columns.size()) - 1;
  std::vector<const std::vector<double>*> train_rows, held_rows;
  int num_classes = 0;
  for (size_t i = 0; i < table.rows.size(); ++i) {
    const double label = table.rows[i][static_cast<size_t>(d)];
    if (label < 0 || label != std::floor(label))
      return errors::InvalidArgument(path, ": row ", i + 1, ": class '", label, "' is not a whole number >= 0");
    num_classes = std::max(num_classes, static_cast<int>(label) + 1);
    ((static_cast<int>(i) % held_out_every == held_out_every - 1) ? held_rows : train_rows).push_back(&table.rows[i]);
  }
  // Scale with the training split's mean and deviation (a constant column stays 0).
  std::vector<double> mean(static_cast<size_t>(d), 0.0), deviation(static_cast<size_t>(d), 0.0);
  for (const auto* row : train_rows)
    for (int j = 0; j < d; ++j)
      mean[static_cast<size_t>(j)] += (*row)[static_cast<size_t>(j)] / static_cast<double>(train_rows.size());
  for (const auto* row : train_rows)
    for (int j = 0; j < d; ++j) {
      const double diff = (*row)[static_cast<size_t>(j)] - mean[static_cast<size_t>(j)];
      deviation[static_cast<size_t>(j)] += diff * diff / static_cast<double>(train_rows.size());
    }
  for (double& v : deviation) v = v > 0 ? std::sqrt(v) : 1.0;
  auto to_examples = [&](const std::vector<const std::vector<double>*>& rows) {
    Examples out{Tensor(DT_FLOAT, TensorShape({static_cast<int64_t>(rows.size()), d})),
                 Tensor(DT_INT32, TensorShape({static_cast<int64_t>(rows.size())}))};
    for (size_t i = 0; i < rows.size(); ++i) {
      for (int j = 0; j < d; ++j)
        out.features.data<float>()[static_cast<int64_t>(i) * d + j] = static_cast<float>(
            ((*rows[i])[static_cast<size_t>(j)] - mean[static_cast<size_t>(j)]) / deviation[static_cast<size_t>(j)]);
      out.labels.data<int32_t>()[i] = static_cast<int32_t>((*rows[i])[static_cast<size_t>(d)]);
    }
    return out;
  };
  ClassificationData data;
  data.train = to_examples(train_rows);
  data.held_out = to_examples(held_rows);
  data.num_classes = num_classes;
  data.num_features = d;
  return data;
}

Examples Shard(const Examples& examples, int shard, int num_shards) {
  std::vector<int64_t> rows;
  for (int64_t i = shard; i < examples.size(); i += num_shards) rows.push_back(i);
  return Rows(examples, rows);
}

StatusOr<double> Train(Session& session, const tools::ClassifierGraph& model, const Examples& data, int64_t steps,
                       int batch, uint64_t seed) {
  if (data.size() == 0) return errors::InvalidArgument("Train: no examples to draw minibatches from");
  MinibatchSampler sampler(data, batch, seed);
  std::vector<Tensor> out;
  double loss = 0;
  for (int64_t step = 0; step < steps; ++step) {
    const Examples minibatch = sampler.Next();
    CLAB_RETURN_IF_ERROR(
        session.Run({{model.features.name(), minibatch.features}, {model.labels.name(), minibatch.labels}},
                    {model.loss.name()}, {model.train.node()}, &out));
    loss = out[0].scalar<float>();
  }
  return loss;
}

StatusOr<double> TrainOnGraphInput(Session& session, const tools::ClassifierGraph& model, int64_t steps) {
  std::vector<Tensor> out;
  double loss = 0;
  for (int64_t step = 0; step < steps; ++step) {
    CLAB_RETURN_IF_ERROR(session.Run({}, {model.loss.name()}, {model.train.node()}, &out));
    loss = out[0].scalar<float>();
  }
  return loss;
}

StatusOr<double> Accuracy(Session& session, const tools::ClassifierGraph& model, const Examples& data) {
  std::vector<Tensor> out;
  CLAB_RETURN_IF_ERROR(session.Run({{model.features.name(), data.features}}, {model.logits.name()}, {}, &out));
  const int64_t classes = out[0].shape().dim(1);
  int64_t correct = 0;
  for (int64_t r = 0; r < data.size(); ++r) {
    const float* row = out[0].data<float>() + r * classes;
    const int64_t best = std::max_element(row, row + classes) - row;
    correct += best == data.labels.data<int32_t>()[r];
  }
  return static_cast<double>(correct) / static_cast<double>(data.size());
}

}  // namespace clab::examples
