#include "clab/io/ExampleSet.h"

#include "clab/io/CsvTable.h"
#include "clab/io/IdxFile.h"

#include <absl/strings/match.h>
#include <absl/strings/numbers.h>
#include <absl/strings/str_split.h>
#include <zlib.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>

namespace clab {
namespace {

bool IsCsvPath(const std::string& path) { return absl::EndsWith(path, ".csv") || absl::EndsWith(path, ".csv.gz"); }

Status UnknownFormat(const std::string& path) {
  return errors::InvalidArgument("cannot tell the format of '", path,
                                 "': expected a name ending in .csv, .csv.gz, .idx, .idx.gz or -ubyte(.gz)");
}

// A CSV table: the last column is the class.
struct CsvSource {
  const CsvTable& table;
  int64_t rows() const { return static_cast<int64_t>(table.rows.size()); }
  int64_t features() const { return static_cast<int64_t>(table.columns.size()) - 1; }
  double feature(int64_t row, int64_t j) const { return table.rows[static_cast<size_t>(row)][static_cast<size_t>(j)]; }
  double label(int64_t row) const { return table.rows[static_cast<size_t>(row)].back(); }
};

// Two IDX arrays: features (first dimension = examples) and rank-1 labels.
struct IdxSource {
  const IdxArray& features_array;
  const IdxArray& labels_array;
  int64_t rows() const { return features_array.dims()[0]; }
  int64_t features() const { return features_array.ElementsPerRow(); }
  double feature(int64_t row, int64_t j) const { return features_array.Value(row * features() + j); }
  double label(int64_t row) const { return labels_array.Value(row); }
};

struct Scale {
  enum Kind { kNone, kStandardize, kDivide } kind = kNone;
  double divisor = 1;
};

StatusOr<Scale> ParseScale(const std::string& scale) {
  Scale parsed;
  if (scale == "none" || scale.empty()) return parsed;
  if (scale == "standardize") {
    parsed.kind = Scale::kStandardize;
    return parsed;
  }
  if (absl::StartsWith(scale, "divide:") && absl::SimpleAtod(scale.substr(7), &parsed.divisor) && parsed.divisor != 0 &&
      std::isfinite(parsed.divisor)) {
    parsed.kind = Scale::kDivide;
    return parsed;
  }
  return errors::InvalidArgument("scale '", scale,
                                 "' is not one of 'none', 'standardize', 'divide:X' (X a nonzero number)");
}

template <typename Source>
StatusOr<ExampleSet> Assemble(const Source& source, const ExampleSetOptions& options, const Scale& scale,
                              const std::string& label_file) {
  const int64_t n = source.rows();
  const int64_t d = source.features();
  const int64_t k = options.held_out_every;
  for (int64_t i = 0; i < n; ++i) {
    const double label = source.label(i);
    if (!(label >= 0) || label != std::floor(label) || label > std::numeric_limits<int32_t>::max())
      return errors::InvalidArgument(label_file, ": example ", i + 1, ": class '", label,
                                     "' is not a whole number >= 0");
  }
  std::vector<int64_t> train, held_out;
  for (int64_t i = 0; i < n; ++i) (k > 0 && i % k == k - 1 ? held_out : train).push_back(i);

  // Statistics over the whole training split, summed in file order.
  std::vector<double> mean(static_cast<size_t>(d), 0.0), deviation(static_cast<size_t>(d), 1.0);
  if (scale.kind == Scale::kStandardize && !train.empty()) {
    const double count = static_cast<double>(train.size());
    std::fill(deviation.begin(), deviation.end(), 0.0);
    for (int64_t row : train)
      for (int64_t j = 0; j < d; ++j) mean[static_cast<size_t>(j)] += source.feature(row, j) / count;
    for (int64_t row : train)
      for (int64_t j = 0; j < d; ++j) {
        const double diff = source.feature(row, j) - mean[static_cast<size_t>(j)];
        deviation[static_cast<size_t>(j)] += diff * diff / count;
      }
    for (double& v : deviation) v = v > 0 ? std::sqrt(v) : 1.0;
  }

  const std::vector<int64_t>& split = options.held_out_split ? held_out : train;
  ExampleSet set;
  set.num_features = d;
  for (size_t j = static_cast<size_t>(options.shard_index); j < split.size();
       j += static_cast<size_t>(options.num_shards))
    set.source_rows.push_back(split[j]);
  set.num_examples = static_cast<int64_t>(set.source_rows.size());
  set.features.resize(static_cast<size_t>(set.num_examples * d));
  set.labels.resize(static_cast<size_t>(set.num_examples));
  for (int64_t e = 0; e < set.num_examples; ++e) {
    const int64_t row = set.source_rows[static_cast<size_t>(e)];
    float* out = set.features.data() + e * d;
    for (int64_t j = 0; j < d; ++j) {
      const double x = source.feature(row, j);
      switch (scale.kind) {
        case Scale::kNone: out[j] = static_cast<float>(x); break;
        case Scale::kStandardize:
          out[j] = static_cast<float>((x - mean[static_cast<size_t>(j)]) / deviation[static_cast<size_t>(j)]);
          break;
        case Scale::kDivide: out[j] = static_cast<float>(x / scale.divisor); break;
      }
    }
    set.labels[static_cast<size_t>(e)] = static_cast<int32_t>(source.label(row));
  }
  return set;
}

StatusOr<ExampleSet> LoadCsv(const ExampleSetOptions& options, const Scale& scale) {
  if (!options.labels_path.empty())
    return errors::InvalidArgument("'", options.path,
                                   "' is a CSV file, whose last column holds the labels: labels_path '",
                                   options.labels_path, "' is for IDX sources only");
  CLAB_ASSIGN_OR_RETURN(const CsvTable table, ReadCsvTable(options.path, options.fd));
  if (table.columns.size() < 2)
    return errors::InvalidArgument("'", options.path, "' needs at least one feature column and a class column, has ",
                                   table.columns.size(), " column(s)");
  return Assemble(CsvSource{table}, options, scale, options.path);
}

StatusOr<ExampleSet> LoadIdx(const ExampleSetOptions& options, const Scale& scale) {
  if (options.labels_path.empty())
    return errors::InvalidArgument("'", options.path, "' is an IDX file of features: its labels need labels_path");
  CLAB_ASSIGN_OR_RETURN(const IdxArray features, ReadIdxFile(options.path, options.fd));
  CLAB_ASSIGN_OR_RETURN(const IdxArray labels, ReadIdxFile(options.labels_path, options.labels_fd));
  if (labels.dims().size() != 1)
    return errors::InvalidArgument("labels file '", options.labels_path, "' has rank ", labels.dims().size(),
                                   ": expected one label per example (rank 1)");
  if (labels.dims()[0] != features.dims()[0])
    return errors::InvalidArgument("labels file '", options.labels_path, "' has ", labels.dims()[0],
                                   " labels, but features file '", options.path, "' has ", features.dims()[0],
                                   " examples");
  return Assemble(IdxSource{features, labels}, options, scale, options.labels_path);
}

// The first line of a (possibly compressed) text file.
StatusOr<std::string> ReadFirstLine(const std::string& path) {
  errno = 0;
  gzFile file = ::gzopen(path.c_str(), "rb");
  if (file == nullptr)
    return errors::NotFound("cannot read '", path, "': ", errno != 0 ? std::strerror(errno) : "out of memory");
  std::string line;
  char buffer[4096];
  while (::gzgets(file, buffer, sizeof(buffer)) != nullptr) {
    line += buffer;
    if (!line.empty() && line.back() == '\n') break;
  }
  ::gzclose(file);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  return line;
}

}  // namespace

Status ValidateExampleScale(const std::string& scale) { return ParseScale(scale).status(); }

StatusOr<ExampleSet> LoadExampleSet(const ExampleSetOptions& options) {
  CLAB_ASSIGN_OR_RETURN(const Scale scale, ParseScale(options.scale));
  if (options.num_shards < 1 || options.shard_index < 0 || options.shard_index >= options.num_shards)
    return errors::InvalidArgument("shard_index ", options.shard_index,
                                   " is not in [0, num_shards = ", options.num_shards, ")");
  if (options.held_out_every < 0 || options.held_out_every == 1)
    return errors::InvalidArgument("held_out_every ", options.held_out_every,
                                   " must be 0 (nothing held out) or at least 2 (every k-th example held out)");
  if (IsCsvPath(options.path)) return LoadCsv(options, scale);
  if (IsIdxPath(options.path)) return LoadIdx(options, scale);
  return UnknownFormat(options.path);
}

StatusOr<int64_t> ReadExampleSetNumFeatures(const std::string& path) {
  if (IsCsvPath(path)) {
    CLAB_ASSIGN_OR_RETURN(const std::string header, ReadFirstLine(path));
    const std::vector<absl::string_view> columns = absl::StrSplit(header, ',');
    if (header.empty() || columns.size() < 2)
      return errors::InvalidArgument("'", path, "' has no header of feature columns and a class column");
    return static_cast<int64_t>(columns.size()) - 1;
  }
  if (IsIdxPath(path)) {
    CLAB_ASSIGN_OR_RETURN(const IdxHeader header, ReadIdxHeader(path));
    int64_t d = 1;
    for (size_t i = 1; i < header.dims.size(); ++i) d *= header.dims[i];
    return d;
  }
  return UnknownFormat(path);
}

}  // namespace clab
