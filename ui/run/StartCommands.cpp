#include "run/StartCommands.h"

#include "launch/ssh/ShellQuote.h"
#include "launch/task/TaskCommand.h"

#include <QRegularExpression>

namespace clab::ui {

QStringList StartCommands(const Project& project, const QString& path) {
  // The arguments the studio's own launch gives each task (program, run settings, the
  // chief's checkpoint directory and interval), on the project's addresses.
  auto file = project.toProjectFile(path);
  if (!file.ok()) return {QStringLiteral("# %1").arg(QString::fromStdString(std::string(file.status().message())))};
  QStringList lines;
  for (const ProjectTask& task : project.tasks) {
    launch::TaskCommandOptions command;
    command.cluster = project.clusterSpec().toStdString();
    command.job = task.job.toStdString();
    command.index = task.index;
    command.graph_path = project.graph.isEmpty() ? std::string() : std::string("graph.pbtxt");
    command.checkpoint_dir = project.run.checkpoint_dir.toStdString();
    QStringList words{"clab"};
    for (const std::string& arg : launch::TaskArguments(*file, command)) {
      // Quoted only where a shell would read the word otherwise ("ps=...;worker=...").
      static const QRegularExpression plain("^[A-Za-z0-9_./:=,@+-]+$");
      const QString word = QString::fromStdString(arg);
      words << (plain.match(word).hasMatch() ? word : QString::fromStdString(launch::ShellQuote(arg)));
    }
    lines << words.join(' ');
  }
  return lines;
}

}  // namespace clab::ui
