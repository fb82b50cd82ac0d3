// Labelled examples for classification, read from a file: what the MinibatchDataset op
// serves its minibatches from.
//
// Sources, chosen by the path's ending:
//   .csv, .csv.gz   a header line, then one example per line: the feature values, then the
//                   class in the last column (a whole number >= 0).
//   IDX (.idx, .idx.gz, MNIST's "-ubyte" names)
//                   the features file, one example per index of its first dimension (the
//                   other dimensions are flattened: 28x28 images give 784 features), and a
//                   separate rank-1 labels file of whole numbers >= 0, one per example.
//
// Splits: with held_out_every = k > 0, example i (0-based, in file order) is held out when
// i % k == k - 1 (every k-th example, as the example models' LoadClassificationCsv does);
// the others form the training split. Sharding applies within the chosen split: its j-th
// example belongs to shard j % num_shards.
//
// Scaling: "none"; "standardize" (each feature minus its mean, divided by its standard
// deviation, both over the whole training split, whichever split or shard is read; a
// constant feature keeps deviation 1); or "divide:X" (every value divided by X, e.g.
// "divide:255" for 8-bit images).
#pragma once

#include "clab/core/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace clab {

struct ExampleSetOptions {
  std::string path;
  std::string labels_path;      // IDX sources only
  int64_t held_out_every = 0;   // 0: nothing held out
  bool held_out_split = false;  // read the held-out split rather than the training split
  std::string scale = "none";
  int64_t shard_index = 0;
  int64_t num_shards = 1;
  // Files already opened for `path` and `labels_path` (a server opens them confined to its
  // directories): read from these descriptors, which stay the caller's. -1: open by name.
  int fd = -1;
  int labels_fd = -1;
};

struct ExampleSet {
  int64_t num_examples = 0;
  int64_t num_features = 0;
  std::vector<float> features;  // row-major [num_examples, num_features]
  std::vector<int32_t> labels;  // [num_examples]
  // Position of each example in the source file (0-based), for tests and messages.
  std::vector<int64_t> source_rows;
};

StatusOr<ExampleSet> LoadExampleSet(const ExampleSetOptions& options);

// The number of features per example, from the file's header alone (the CSV header line,
// the IDX header): cheap enough for a shape function.
StatusOr<int64_t> ReadExampleSetNumFeatures(const std::string& path);

// Checks a scale spec ("none", "standardize", "divide:X" with X a nonzero number).
Status ValidateExampleScale(const std::string& scale);

}  // namespace clab
