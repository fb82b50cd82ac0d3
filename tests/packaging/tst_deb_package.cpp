// The .deb that `cpack -G DEB` makes from this build tree: its file list, its control fields,
// and that the packaged programs find the packaged engine library through their RPATH.
// The package is built into a temporary folder inside the build tree and never installed.
#include <QtTest>

#include <QDir>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>

namespace {

QString Env(const char* name) { return qEnvironmentVariable(name); }

struct Result {
  int exit_code = -1;
  QString output;
};

Result Run(const QString& program, const QStringList& args, int timeout_ms = 240000) {
  QProcess p;
  p.setProcessChannelMode(QProcess::MergedChannels);
  p.start(program, args);
  Result r;
  if (!p.waitForStarted(10000)) {
    r.output = program + ": " + p.errorString();
    return r;
  }
  if (!p.waitForFinished(timeout_ms)) {
    p.kill();
    p.waitForFinished(5000);
    r.output = program + " timed out";
    return r;
  }
  r.exit_code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  r.output = QString::fromLocal8Bit(p.readAll());
  return r;
}

// "/usr/local" + "lib" -> "./usr/local/lib/", as dpkg-deb -c prints paths.
QString PackagePath(const QString& relative) {
  QString prefix = Env("CLAB_INSTALL_PREFIX");
  if (!prefix.endsWith('/')) prefix += '/';
  return "." + prefix + relative;
}

}  // namespace

class DebPackageTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir* work_ = nullptr;
  QString deb_;
  QStringList files_;  // paths as dpkg-deb -c lists them

 private slots:
  void initTestCase() {
    const QString build = Env("CLAB_BUILD_DIR");
    QVERIFY2(!build.isEmpty(), "CLAB_BUILD_DIR is not set (run through CTest)");
    work_ = new QTemporaryDir(build + "/packaging-test-XXXXXX");
    QVERIFY(work_->isValid());
    // cpack first brings the tree up to date ("preinstall"): after a full build, as under
    // scripts/test, that is a no-op check of a second or two.
    const Result cpack =
        Run(Env("CLAB_CPACK"), {"-G", "DEB", "--config", build + "/CPackConfig.cmake", "-B", work_->path()});
    QVERIFY2(cpack.exit_code == 0, qPrintable(cpack.output));
    const QStringList debs = QDir(work_->path()).entryList({"*.deb"}, QDir::Files);
    QVERIFY2(debs.size() == 1, qPrintable("expected one .deb, cpack said:\n" + cpack.output));
    deb_ = work_->filePath(debs.first());
    qInfo("package: %s", qPrintable(debs.first()));

    const Result list = Run("dpkg-deb", {"-c", deb_});
    QVERIFY2(list.exit_code == 0, qPrintable(list.output));
    for (const QString& line : list.output.split('\n', Qt::SkipEmptyParts)) {
      // "-rwxr-xr-x root/root  123 2024-01-01 00:00 ./usr/bin/clab" (links add " -> target")
      const QString path = line.section(QRegularExpression("\\s+"), 5).section(" -> ", 0, 0);
      files_ << path;
    }
  }

  void cleanupTestCase() { delete work_; }

  void fileNameIsDebianStyle() {
    QVERIFY2(QRegularExpression("^clusterlab_[0-9][^_]*_[a-z0-9]+\\.deb$").match(QFileInfo(deb_).fileName()).hasMatch(),
             qPrintable(QFileInfo(deb_).fileName()));
  }

  void containsFile_data() {
    // clang-format off
    QTest::addColumn<QString>("path");
    QTest::addColumn<bool>("expected");
    const QString bin = Env("CLAB_INSTALL_BINDIR"), lib = Env("CLAB_INSTALL_LIBDIR"), data = Env("CLAB_INSTALL_DATADIR");
    QTest::newRow("clab") << PackagePath(bin + "/clab") << true;
    QTest::newRow("clusterlab") << PackagePath(bin + "/clusterlab") << (Env("CLAB_EXPECT_GUI") == "1");
    QTest::newRow("engine library") << PackagePath(lib + "/libclab_engine.so.0") << true;
    QTest::newRow("desktop entry") << PackagePath(data + "/applications/clusterlab.desktop") << true;
    QTest::newRow("icon") << PackagePath(data + "/icons/hicolor/scalable/apps/clusterlab.svg") << true;
    QTest::newRow("GPU plugin") << PackagePath(lib + "/clusterlab/libclab_cuda.so")
                                << (Env("CLAB_EXPECT_CUDA_PLUGIN") == "1");
    // clang-format on
  }
  void containsFile() {
    QFETCH(QString, path);
    QFETCH(bool, expected);
    if (!expected) QSKIP(qPrintable(path + " is not built in this configuration"));
    QVERIFY2(files_.contains(path), qPrintable(path + " missing; the package has:\n" + files_.join('\n')));
  }

  void controlFields() {
    const Result fields = Run("dpkg-deb", {"-f", deb_, "Package", "Section", "Maintainer", "Depends", "Description"});
    QVERIFY2(fields.exit_code == 0, qPrintable(fields.output));
    const QString& f = fields.output;
    QVERIFY2(f.contains("Package: clusterlab"), qPrintable(f));
    QVERIFY2(f.contains(QRegularExpression("Section: \\S+")), qPrintable(f));
    QVERIFY2(f.contains(QRegularExpression("Maintainer: .+<.+@.+>")), qPrintable(f));
    QVERIFY2(f.contains("qt6-qpa-plugins") && f.contains("fonts-dejavu-core"), qPrintable(f));
    // dpkg-shlibdeps found the libraries the programs link (libc at least).
    QVERIFY2(f.contains("libc6"), qPrintable(f));
    QVERIFY2(f.contains("Description: "), qPrintable(f));
  }

  void programsFindThePackagedEngine() {
    QTemporaryDir root(work_->path() + "/root-XXXXXX");
    const Result extract = Run("dpkg-deb", {"-x", deb_, root.path()});
    QVERIFY2(extract.exit_code == 0, qPrintable(extract.output));
    const QString prefix = root.path() + Env("CLAB_INSTALL_PREFIX") + "/";
    const QString clab = prefix + Env("CLAB_INSTALL_BINDIR") + "/clab";
    QVERIFY2(QFileInfo::exists(clab), qPrintable(clab));
    // The dynamic loader's own resolution (ldd) shows where libclab_engine comes from: it
    // must be the extracted copy, reached through $ORIGIN, not the build tree.
    const Result ldd = Run("ldd", {clab});
    QVERIFY2(ldd.exit_code == 0, qPrintable(ldd.output));
    const QString engine_line = ldd.output.split('\n').filter("libclab_engine").value(0);
    QVERIFY2(engine_line.contains(root.path()), qPrintable(ldd.output));
  }
};

QTEST_GUILESS_MAIN(DebPackageTest)
#include "tst_deb_package.moc"
