// The cluster of a project in the forms other tools use: ClusterSpec JSON
// ({"ps": ["h:p"], ...}), the Python dict literal the seed writes, and TF_CONFIG (the cluster
// plus one task), and back from any of them or from the inline "ps=h:p;worker=h:p" form.
#pragma once

#include "project/Project.h"

namespace clab::ui {

// Replaces `tasks` with the cluster `spec` describes; false with `error` naming what is
// wrong (and `tasks` untouched).
bool ImportCluster(const QString& spec, QList<ProjectTask>* tasks, QString* error);
// `format`: "ClusterSpec JSON", "Python dict" or "TF_CONFIG" (for `task`, else worker 0).
QString ExportCluster(const Project& project, const QString& format, const QString& task = {});

}  // namespace clab::ui
