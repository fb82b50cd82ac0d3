// Runs the built programs (clab, the examples) as a user would and captures what they say.
// The build directory comes from CLAB_BIN_DIR and the source tree from CLAB_SOURCE_DIR, both
// set by CTest; without them the usual layout of a build tree is assumed.
#pragma once

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

struct ProgramResult {
  bool finished = false;
  int exitCode = -1;
  QString out;
  QString err;

  // Lines without the final newline's empty remainder.
  static QStringList linesOf(const QString& text) {
    QStringList lines = text.split('\n');
    if (!lines.isEmpty() && lines.last().isEmpty()) lines.removeLast();
    return lines;
  }
  QStringList outLines() const { return linesOf(out); }
  QStringList errLines() const { return linesOf(err); }
};

class ClabProcess {
 public:
  static QString binDir() {
    const QString fromEnv = qEnvironmentVariable("CLAB_BIN_DIR");
    if (!fromEnv.isEmpty()) return fromEnv;
    // Tests are built into <build>/tests, programs into <build>/bin.
    return QDir(QCoreApplication::applicationDirPath() + "/../bin").absolutePath();
  }

  static QString sourceDir() {
    const QString fromEnv = qEnvironmentVariable("CLAB_SOURCE_DIR");
    if (!fromEnv.isEmpty()) return fromEnv;
#ifdef CLAB_SOURCE_DIR_FALLBACK
    return QStringLiteral(CLAB_SOURCE_DIR_FALLBACK);
#else
    return QDir::currentPath();
#endif
  }

  static QString programPath(const QString& name) { return binDir() + "/" + name; }

  static ProgramResult run(const QString& program, const QStringList& args, int timeoutMs = 60000) {
    QProcess process;
    // Programs must not depend on the test's working directory; paths are passed whole.
    process.setWorkingDirectory(QDir::tempPath());
    process.start(programPath(program), args);
    ProgramResult result;
    if (!process.waitForStarted(10000)) {
      result.err = QStringLiteral("could not start %1: %2").arg(programPath(program), process.errorString());
      return result;
    }
    result.finished = process.waitForFinished(timeoutMs);
    if (!result.finished) {
      process.kill();
      process.waitForFinished(5000);
    }
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.out = QString::fromUtf8(process.readAllStandardOutput());
    result.err = QString::fromUtf8(process.readAllStandardError());
    return result;
  }

  static ProgramResult clab(const QStringList& args, int timeoutMs = 60000) { return run("clab", args, timeoutMs); }

  // Writes a whole input file for a test; false when it could not.
  static bool writeFile(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
  }
};
