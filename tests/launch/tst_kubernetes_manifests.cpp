// The Kubernetes manifests `clab export --k8s` writes: every object checked, after a trip
// through its YAML text, against the schema of its kind (Kubernetes v1.30's Service, Pod
// and ConfigMap; Kubeflow's TFJob CRD; schemas/SOURCES.md lists them, kept outside the repository) and the
// API server's rules for names and ports; their shape (replica specs, TF_CONFIG, volumes);
// and the round trip: importing the manifests back gives the project's cluster. A protected
// project's credentials go into a Secret of a file of its own (mode 0600), mounted read-only
// in each pod with its own task's key only; no key or token is in any pod's arguments.
#include "ClabProcess.h"
#include "JsonSchemaCheck.h"
#include "launch/kubernetes/KubernetesExport.h"
#include "launch/kubernetes/KubernetesImport.h"
#include "launch/kubernetes/KubernetesManifests.h"
#include "launch/kubernetes/KubernetesNames.h"
#include "launch/kubernetes/YamlDocuments.h"
#include "launch/project/ProjectFile.h"
#include "launch/project/TextFile.h"
#include "launch/security/ClusterCertificates.h"

#include <absl/strings/escaping.h>
#include <sys/stat.h>

#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include <map>
#include <regex>

using namespace clab;
using namespace clab::launch;
using clab::testing::JsonSchemaCheck;
using Json = nlohmann::json;

namespace {

// The third-party schemas live outside the repository (tests/launch/schemas/SOURCES.md says
// which files and where they come from): the folder CLAB_K8S_SCHEMA_DIR names, at run time or
// when the build was configured. Empty where none was given.
QString Schemas() {
  QString dir = qEnvironmentVariable("CLAB_K8S_SCHEMA_DIR");
#ifdef CLAB_K8S_SCHEMA_DIR
  if (dir.isEmpty()) dir = QStringLiteral(CLAB_K8S_SCHEMA_DIR);
#endif
  return dir.isEmpty() ? QString() : dir + "/";
}

bool HaveSchemas() { return !Schemas().isEmpty() && QFileInfo::exists(Schemas() + "kubeflow-tfjob-v1.json"); }

constexpr const char* kNoSchemas =
    "the Kubernetes and TFJob schemas are not here (tests/launch/schemas/SOURCES.md lists them; "
    "configure with -DCLAB_K8S_SCHEMA_DIR=DIR or set CLAB_K8S_SCHEMA_DIR)";

// The check for a kind; null for a kind without a schema, or whose schema file cannot be
// read or parsed (the test then fails naming it, rather than checking against nothing).
const JsonSchemaCheck* SchemaFor(const std::string& kind) {
  static const std::map<std::string, JsonSchemaCheck> checks = [] {
    std::map<std::string, JsonSchemaCheck> loaded;
    const std::map<std::string, QString> files = {{"Service", "kubernetes-v1.30.0-service-v1.json"},
                                                  {"Pod", "kubernetes-v1.30.0-pod-v1.json"},
                                                  {"ConfigMap", "kubernetes-v1.30.0-configmap-v1.json"},
                                                  {"TFJob", "kubeflow-tfjob-v1.json"}};
    for (const auto& [kind, file] : files) {
      auto text = ReadTextFile((Schemas() + file).toStdString());
      Json schema = text.ok() ? Json::parse(*text, nullptr, /*allow_exceptions=*/false) : Json();
      if (schema.is_object() && !schema.empty()) loaded.emplace(kind, JsonSchemaCheck(std::move(schema)));
    }
    return loaded;
  }();
  const auto found = checks.find(kind);
  return found == checks.end() ? nullptr : &found->second;
}

bool IsDnsLabel(const std::string& name) {
  static const std::regex label("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  return name.size() <= 63 && std::regex_match(name, label);
}

// What the API server checks beyond the schemas, for the fields ClusterLab writes.
std::vector<std::string> ServerRules(const Json& object) {
  std::vector<std::string> problems;
  const std::string kind = object.value("kind", "");
  const Json metadata = object.value("metadata", Json::object());
  if (!IsDnsLabel(metadata.value("name", ""))) problems.push_back("metadata.name '" + metadata.value("name", "") + "'");
  if (!IsDnsLabel(metadata.value("namespace", ""))) problems.push_back("metadata.namespace");
  static const std::regex label_value("([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?");
  const Json labels = metadata.value("labels", Json::object());
  for (const auto& [key, value] : labels.items())
    if (value.get<std::string>().size() > 63 || !std::regex_match(value.get<std::string>(), label_value))
      problems.push_back("label " + key);
  // Containers wherever they are: a Pod's spec or a TFJob's replica templates.
  std::vector<const Json*> pod_specs;
  const Json no_object = Json::object();
  auto member = [&](const Json& parent, const char* name) -> const Json& {
    return parent.is_object() && parent.contains(name) ? parent[name] : no_object;
  };
  if (kind == "Pod") pod_specs.push_back(&member(object, "spec"));
  if (kind == "TFJob")
    for (const auto& [type, spec] : member(member(object, "spec"), "tfReplicaSpecs").items())
      pod_specs.push_back(&member(member(spec, "template"), "spec"));
  static const std::regex port_name("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  for (const Json* spec : pod_specs) {
    if (spec->contains("hostname") && !IsDnsLabel((*spec)["hostname"])) problems.push_back("spec.hostname");
    if (spec->contains("subdomain") && !IsDnsLabel((*spec)["subdomain"])) problems.push_back("spec.subdomain");
    for (const Json& container : spec->value("containers", Json::array())) {
      if (!IsDnsLabel(container.value("name", ""))) problems.push_back("container name");
      for (const Json& port : container.value("ports", Json::array())) {
        const int number = port.value("containerPort", 0);
        const std::string name = port.value("name", "");
        if (number < 1 || number > 65535) problems.push_back("containerPort " + std::to_string(number));
        // IANA_SVC_NAME: at most 15, a letter in it.
        if (name.size() > 15 || !std::regex_match(name, port_name) ||
            name.find_first_of("abcdefghijklmnopqrstuvwxyz") == std::string::npos)
          problems.push_back("port name '" + name + "'");
      }
    }
  }
  return problems;
}

// A failed step below is reported by the test that asked (QVERIFY2 on the status), never
// dereferenced: a missing example or a failed export must name itself, not crash the suite.
StatusOr<ProjectFile> Example(const QString& name) {
  return ProjectFile::Read((ClabProcess::sourceDir() + "/examples/projects/" + name).toStdString());
}

// The digits MLP with everything the manifests can say: its own graph (a ConfigMap), a
// checkpoint claim, GPUs, a namespace and a restart policy.
StatusOr<ProjectFile> Everything() {
  CLAB_ASSIGN_OR_RETURN(ProjectFile project, Example("digits-mlp.clab"));
  project.path = "/work/lab/Digits MLP v2.clab";
  project.graph = "node {\n  name: \"x\"\n  op: \"Const\"\n}\n";
  CLAB_ASSIGN_OR_RETURN(
      project.cluster,
      ClusterSpec::Parse("ps=gpu1.lab:2223,gpu2.lab:2223;worker=gpu1.lab:2222,gpu2.lab:2222,gpu3.lab:2300"));
  project.launch.kubernetes.name_space = "ml-team";
  project.launch.kubernetes.image = "registry.lab:5000/clusterlab:0.1";
  project.launch.kubernetes.checkpoint_claim = "clab-checkpoints";
  project.launch.kubernetes.gpus = 1;
  project.launch.kubernetes.restart_policy = "ExitCode";
  return project;
}

StatusOr<ProjectFile> Named(const QString& name) { return name.isEmpty() ? Everything() : Example(name); }

// Exported to a file of `dir`, read back from its YAML text.
StatusOr<std::vector<Json>> ExportedDocuments(const StatusOr<ProjectFile>& project, const QTemporaryDir& dir,
                                              const QString& kind) {
  CLAB_RETURN_IF_ERROR(project.status());
  if (!dir.isValid()) return errors::Unavailable("no temporary directory: ", dir.errorString().toStdString());
  CLAB_ASSIGN_OR_RETURN(const KubernetesExportResult result,
                        ExportKubernetes(*project, dir.path().toStdString(), kind.toStdString()));
  if (result.files.size() != 1)
    return errors::Internal("exporting ", kind.toStdString(), " wrote ", result.files.size(), " files, not one");
  CLAB_ASSIGN_OR_RETURN(const std::string text, ReadTextFile(result.files.front()));
  return ReadYamlDocuments(text, result.files.front());
}

// The first document of that kind (null: none; the caller checks).
const Json* FindKind(const std::vector<Json>& documents, const std::string& kind) {
  for (const Json& document : documents)
    if (document.value("kind", "") == kind) return &document;
  return nullptr;
}

// Rows: each example and the project with everything ("" names it), as each kind.
void ProjectsAndKinds() {
  QTest::addColumn<QString>("project");
  QTest::addColumn<QString>("kind");
  for (const char* kind : {"tfjob", "pods"}) {
    QTest::addRow("seed %s", kind) << "seed.clab" << kind;
    QTest::addRow("digits-mlp %s", kind) << "digits-mlp.clab" << kind;
    QTest::addRow("everything %s", kind) << "" << kind;
  }
}

}  // namespace

class KubernetesManifestsTest : public QObject {
  Q_OBJECT

 private slots:
  void manifestsFitTheSchemas_data() { ProjectsAndKinds(); }
  void manifestsFitTheSchemas() {
    QFETCH(QString, project);
    QFETCH(QString, kind);
    QTemporaryDir dir;
    const auto exported = ExportedDocuments(Named(project), dir, kind);
    QVERIFY2(exported.ok(), exported.status().ToString().c_str());
    const std::vector<Json>& documents = *exported;
    QVERIFY(!documents.empty());
    const bool schemas = HaveSchemas();
    for (const Json& document : documents) {
      const std::string what =
          document.value("kind", "?") + " " + document.value("metadata", Json::object()).value("name", "?");
      std::vector<std::string> problems;
      for (const std::string& rule : ServerRules(document)) problems.push_back("server rule: " + rule);
      QVERIFY2(problems.empty(), qPrintable(QString::fromStdString(what + ": " + Json(problems).dump())));
      if (!schemas) continue;
      const JsonSchemaCheck* schema = SchemaFor(document.value("kind", ""));
      QVERIFY2(schema != nullptr,
               qPrintable(QString::fromStdString("no schema (under " + Schemas().toStdString() + ") for " + what)));
      problems = schema->Problems(document);
      QVERIFY2(problems.empty(), qPrintable(QString::fromStdString(what + ": " + Json(problems).dump())));
    }
    if (project.isEmpty()) QVERIFY(FindKind(documents, "ConfigMap") != nullptr);
    if (!schemas) QSKIP(kNoSchemas);
  }

  void theCheckIsNotBlind() {
    if (!HaveSchemas()) QSKIP(kNoSchemas);
    QTemporaryDir dir;
    const auto pods = ExportedDocuments(Example("seed.clab"), dir, "pods");
    QVERIFY2(pods.ok(), pods.status().ToString().c_str());
    QVERIFY(FindKind(*pods, "Pod") != nullptr);
    Json pod = *FindKind(*pods, "Pod");
    pod["spec"]["containers"][0]["ports"][0]["containerPort"] = "2223";
    pod["spec"]["containers"][0]["imagePullPolicy"] = "Sometimes";
    pod["spec"]["restartPolicy"] = "OnSuccess";
    pod["spec"]["containres"] = Json::array();
    QVERIFY(SchemaFor("Pod") != nullptr && SchemaFor("TFJob") != nullptr);
    const std::vector<std::string> problems = SchemaFor("Pod")->Problems(pod);
    const QString text = QString::fromStdString(Json(problems).dump());
    QVERIFY2(text.contains("spec.containers[0].ports[0].containerPort: wants"), qPrintable(text));
    QVERIFY2(text.contains("spec.containres: unknown field"), qPrintable(text));
    const auto tfjobs = ExportedDocuments(Example("seed.clab"), dir, "tfjob");
    QVERIFY2(tfjobs.ok(), tfjobs.status().ToString().c_str());
    QVERIFY(FindKind(*tfjobs, "TFJob") != nullptr);
    Json tfjob = *FindKind(*tfjobs, "TFJob");
    tfjob["spec"]["tfReplicaSpecs"]["PS"]["replicas"] = "one";
    tfjob["spec"]["tfReplicaSpecs"]["PS"]["template"]["spec"]["containers"][0].erase("name");
    const QString tfjob_text = QString::fromStdString(Json(SchemaFor("TFJob")->Problems(tfjob)).dump());
    QVERIFY2(tfjob_text.contains("spec.tfReplicaSpecs.PS.replicas: wants"), qPrintable(tfjob_text));
    QVERIFY2(tfjob_text.contains("spec.tfReplicaSpecs.PS.template.spec.containers[0].name: missing"),
             qPrintable(tfjob_text));
  }

  void tfJobReplicaSpecs() {
    QTemporaryDir dir;
    const auto documents = ExportedDocuments(Everything(), dir, "tfjob");
    QVERIFY2(documents.ok(), documents.status().ToString().c_str());
    QVERIFY(FindKind(*documents, "TFJob") != nullptr);
    // Copies: a member missing below reads as null and fails its comparison (a const
    // json's operator[] would read past the end).
    Json tfjob = *FindKind(*documents, "TFJob");
    QCOMPARE(QString::fromStdString(tfjob["apiVersion"]), QString("kubeflow.org/v1"));
    QCOMPARE(QString::fromStdString(tfjob["metadata"]["name"]), QString("clab-digits-mlp-v2"));
    QCOMPARE(QString::fromStdString(tfjob["metadata"]["namespace"]), QString("ml-team"));
    Json ps = tfjob["spec"]["tfReplicaSpecs"]["PS"];
    Json worker = tfjob["spec"]["tfReplicaSpecs"]["Worker"];
    QCOMPARE(ps["replicas"].get<int>(), 2);
    QCOMPARE(worker["replicas"].get<int>(), 3);
    QCOMPARE(QString::fromStdString(worker["restartPolicy"]), QString("ExitCode"));
    Json container = worker["template"]["spec"]["containers"][0];
    // What the training operator looks for: the container and its port by name.
    QCOMPARE(QString::fromStdString(container["name"]), QString("tensorflow"));
    QCOMPARE(QString::fromStdString(container["ports"][0]["name"]), QString("tfjob-port"));
    QCOMPARE(container["ports"][0]["containerPort"].get<int>(), 2222);
    QCOMPARE(ps["template"]["spec"]["containers"][0]["ports"][0]["containerPort"].get<int>(), 2223);
    QVERIFY2(!container.contains("env"), "the operator sets TF_CONFIG");
    QCOMPARE(QString::fromStdString(container["image"]), QString("registry.lab:5000/clusterlab:0.1"));
    QCOMPARE(container["resources"]["limits"]["nvidia.com/gpu"].get<int>(), 1);
    const QString args = QString::fromStdString(container["args"].dump());
    QVERIFY2(args.contains(R"("example","graph","--graph","/etc/clusterlab/graph.pbtxt")") &&
                 args.contains(R"("--checkpoint_dir","/checkpoints")"),
             qPrintable(args));
    QCOMPARE(QString::fromStdString(ps["template"]["spec"]["containers"][0]["args"].dump()),
             QString(R"(["server","--until_workers_done"])"));
    QCOMPARE(QString::fromStdString(worker["template"]["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"]),
             QString("clab-checkpoints"));
    // A job a TFJob has no replica type for is said, and the plain manifests still hold it.
    auto seed = Example("seed.clab");
    QVERIFY2(seed.ok(), seed.status().ToString().c_str());
    ProjectFile odd = *seed;
    odd.cluster = *ClusterSpec::Parse("ps=h:1;worker=h:2;reader=h:3");
    auto refused = KubernetesManifests::TfJob(odd);
    QVERIFY(!refused.ok());
    QVERIFY2(std::string(refused.status().message()).find("the job 'reader' is none of them") != std::string::npos,
             refused.status().ToString().c_str());
    QVERIFY(KubernetesManifests::Plain(odd).ok());
  }

  void protectedClusterMountsItsSecret() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    auto project = Everything();
    QVERIFY2(project.ok(), project.status().ToString().c_str());
    const std::string certs = dir.filePath("certs").toStdString();
    ClusterCertificateOptions options;
    options.dir = certs;
    options.cluster = project->cluster;
    QVERIFY(MakeClusterCertificates(options).ok());
    project->security.tls_dir = certs;
    project->security.token_file = certs + "/cluster.token";
    const std::string token =
        std::string(QString::fromStdString(*ReadTextFile(certs + "/cluster.token")).trimmed().toStdString());

    const std::string out = dir.filePath("k8s").toStdString();
    auto exported = ExportKubernetes(*project, out, "both");
    QVERIFY2(exported.ok(), exported.status().ToString().c_str());
    QCOMPARE(exported->files.size(), size_t{3});
    const std::string secret_file = exported->files[0];
    QVERIFY2(secret_file.ends_with("-tls-secret.yaml"), secret_file.c_str());
    struct stat info {};
    QVERIFY(::stat(secret_file.c_str(), &info) == 0);
    QCOMPARE(info.st_mode & 0777u, 0600u);

    // The Secret: the CA, the token and every task's certificate and key, as the files hold them.
    auto secret_documents = ReadYamlDocuments(*ReadTextFile(secret_file), secret_file);
    QVERIFY2(secret_documents.ok(), secret_documents.status().ToString().c_str());
    const Json* secret = FindKind(*secret_documents, "Secret");
    QVERIFY(secret != nullptr);
    const std::string secret_name = (*secret)["metadata"]["name"];
    QCOMPARE(QString::fromStdString((*secret)["metadata"]["namespace"]), QString("ml-team"));
    std::vector<std::string> keys;
    for (const auto& [key, value] : (*secret)["data"].items()) {
      keys.push_back(key);
      std::string decoded;
      QVERIFY(absl::Base64Unescape(value.get<std::string>(), &decoded));
      const std::string source = key == "cluster.token" ? certs + "/cluster.token" : certs + "/" + key;
      QCOMPARE(decoded, *ReadTextFile(source));
    }
    QCOMPARE(keys, (std::vector<std::string>{"ca.crt", "cluster.token", "ps-0.crt", "ps-0.key", "ps-1.crt", "ps-1.key",
                                             "worker-0.crt", "worker-0.key", "worker-1.crt", "worker-1.key",
                                             "worker-2.crt", "worker-2.key"}));

    auto check_pod = [&](const Json& pod_spec, const std::vector<std::string>& own, const std::string& where) {
      const Json& container = pod_spec["containers"][0];
      std::vector<std::string> args = container["args"];
      const auto at = std::find(args.begin(), args.end(), "--tls_dir");
      QVERIFY2(at != args.end() && at + 3 < args.end(), where.c_str());
      QCOMPARE(*(at + 1), std::string("/etc/clusterlab-tls"));
      QCOMPARE(*(at + 2), std::string("--token_file"));
      QCOMPARE(*(at + 3), std::string("/etc/clusterlab-tls/cluster.token"));
      for (const std::string& arg : args) {
        QVERIFY2(arg.find(token) == std::string::npos, where.c_str());
        QVERIFY2(arg.find("PRIVATE KEY") == std::string::npos, where.c_str());
      }
      bool mounted = false;
      for (const Json& mount : container["volumeMounts"])
        if (mount["name"] == "tls") mounted = mount["mountPath"] == "/etc/clusterlab-tls" && mount["readOnly"] == true;
      QVERIFY2(mounted, where.c_str());
      std::vector<std::string> items;
      for (const Json& volume : pod_spec["volumes"]) {
        if (volume["name"] != "tls") continue;
        QCOMPARE(volume["secret"]["secretName"].get<std::string>(), secret_name);
        QCOMPARE(volume["secret"]["defaultMode"].get<int>(), 0400);
        for (const Json& item : volume["secret"]["items"]) {
          QCOMPARE(item["key"], item["path"]);
          items.push_back(item["key"]);
        }
      }
      std::vector<std::string> expected{"ca.crt", "cluster.token"};
      for (const std::string& name : own) expected.insert(expected.end(), {name + ".crt", name + ".key"});
      QCOMPARE(items, expected);
    };
    for (const std::string& file : {exported->files[1], exported->files[2]}) {
      const std::string text = *ReadTextFile(file);
      QVERIFY2(text.find("PRIVATE KEY") == std::string::npos && text.find(token) == std::string::npos, file.c_str());
      auto documents = ReadYamlDocuments(text, file);
      QVERIFY2(documents.ok(), documents.status().ToString().c_str());
      for (const Json& document : *documents) {
        if (document["kind"] == "Pod") {
          // A plain pod sees its own task's key alone.
          const std::string job = document["metadata"]["labels"][KubernetesNames::kJobLabel];
          const std::string index = document["metadata"]["labels"][KubernetesNames::kIndexLabel];
          check_pod(document["spec"], {job + "-" + index}, document["metadata"]["name"]);
        } else if (document["kind"] == "TFJob") {
          // A TFJob's replicas share their template: every task of the job.
          const Json& specs = document["spec"]["tfReplicaSpecs"];
          check_pod(specs["PS"]["template"]["spec"], {"ps-0", "ps-1"}, "PS");
          check_pod(specs["Worker"]["template"]["spec"], {"worker-0", "worker-1", "worker-2"}, "Worker");
        }
      }
    }
  }

  void plainPodsCarryTheirTfConfig() {
    QTemporaryDir dir;
    const auto exported = ExportedDocuments(Example("digits-mlp.clab"), dir, "pods");
    QVERIFY2(exported.ok(), exported.status().ToString().c_str());
    const std::vector<Json>& documents = *exported;
    QVERIFY(FindKind(documents, "Service") != nullptr);
    Json service = *FindKind(documents, "Service");
    QCOMPARE(QString::fromStdString(service["spec"]["clusterIP"]), QString("None"));
    int pods = 0;
    for (Json pod : documents) {
      if (pod["kind"] != "Pod") continue;
      ++pods;
      const Json tf_config = Json::parse(pod["spec"]["containers"][0]["env"][0]["value"].get<std::string>());
      QCOMPARE(QString::fromStdString(tf_config["cluster"].dump()),
               QString(R"({"ps":["clab-digits-mlp-ps-0.clab-digits-mlp.default.svc:2223"],)"
                       R"("worker":["clab-digits-mlp-worker-0.clab-digits-mlp.default.svc:2222",)"
                       R"("clab-digits-mlp-worker-1.clab-digits-mlp.default.svc:2224"]})"));
      const std::string name = pod["metadata"]["name"];
      QCOMPARE(QString::fromStdString(name), QStringLiteral("clab-digits-mlp-%1-%2")
                                                 .arg(QString::fromStdString(tf_config["task"]["type"]))
                                                 .arg(tf_config["task"]["index"].get<int>()));
      QCOMPARE(QString::fromStdString(pod["spec"]["hostname"]), QString::fromStdString(name));
      QCOMPARE(QString::fromStdString(pod["spec"]["restartPolicy"]), QString("OnFailure"));
    }
    QCOMPARE(pods, 3);
  }

  void importGivesTheProjectsClusterBack_data() { ProjectsAndKinds(); }
  void importGivesTheProjectsClusterBack() {
    QFETCH(QString, project);
    QFETCH(QString, kind);
    const auto named = Named(project);
    QVERIFY2(named.ok(), named.status().ToString().c_str());
    const ProjectFile& original = *named;
    QTemporaryDir dir;
    QVERIFY2(dir.isValid(), qPrintable(dir.errorString()));
    auto result = ExportKubernetes(original, dir.path().toStdString(), kind.toStdString());
    QVERIFY2(result.ok(), result.status().ToString().c_str());
    QCOMPARE(result->files.size(), size_t(1));
    const auto text = ReadTextFile(result->files.front());
    QVERIFY2(text.ok(), text.status().ToString().c_str());
    auto imported = ImportKubernetes(*text, result->files.front());
    QVERIFY2(imported.ok(), imported.status().ToString().c_str());
    QCOMPARE(QString::fromStdString(imported->project_cluster.ToInline()),
             QString::fromStdString(original.cluster.ToInline()));
    // The cluster as Kubernetes addresses it: the same jobs and tasks; a pod keeps its
    // task's port, a TFJob replica type its first task's.
    const ClusterSpec& cluster = imported->cluster;
    QCOMPARE(cluster.jobs(), original.cluster.jobs());
    for (const std::string& job : original.cluster.jobs()) {
      QCOMPARE(cluster.task_indices(job), original.cluster.task_indices(job));
      for (int index : original.cluster.task_indices(job)) {
        const auto address = cluster.TaskAddress(job, index);
        QVERIFY2(address.ok(), address.status().ToString().c_str());
        const auto parsed = HostPort::Parse(*address);
        QVERIFY2(parsed.ok(), parsed.status().ToString().c_str());
        const HostPort& in_kubernetes = *parsed;
        const auto expected = HostPort::Parse(*original.cluster.TaskAddress(job, kind == "pods" ? index : 0));
        QVERIFY2(expected.ok(), expected.status().ToString().c_str());
        QCOMPARE(in_kubernetes.port, expected->port);
        QVERIFY2(QString::fromStdString(in_kubernetes.host).endsWith(".svc"), in_kubernetes.host.c_str());
      }
    }
  }

  void importNamesWhatIsWrong() {
    QTemporaryDir dir;
    const auto exported = ExportedDocuments(Example("digits-mlp.clab"), dir, "pods");
    QVERIFY2(exported.ok(), exported.status().ToString().c_str());
    const std::vector<Json>& documents = *exported;
    QVERIFY(documents.size() > 1);
    auto import = [](const std::vector<Json>& changed) {
      return ImportKubernetes(WriteYamlDocuments(changed), "pods.yaml");
    };
    auto message = [](const StatusOr<ImportedCluster>& result) {
      return result.ok() ? QString("(imported)") : QString::fromStdString(std::string(result.status().message()));
    };
    std::vector<Json> without_service;
    for (const Json& document : documents)
      if (document.value("kind", "") != "Service") without_service.push_back(document);
    QVERIFY(message(import(without_service)).contains("no Service 'clab-digits-mlp' gives the pod its name"));

    std::vector<Json> twice = documents;
    twice.push_back(documents.back());
    twice.back()["metadata"]["name"] = "another";
    QVERIFY2(message(import(twice))
                 .contains("document 5 (Pod 'another'): /job:worker/task:1 is already the task of another pod"),
             qPrintable(message(import(twice))));

    std::vector<Json> missing = documents;
    missing.pop_back();
    QVERIFY2(message(import(missing)).contains("no pod runs /job:worker/task:1"), qPrintable(message(import(missing))));

    std::vector<Json> closed = documents;
    closed[0]["spec"]["ports"] = Json::array();
    QVERIFY2(
        message(import(closed)).contains("must be headless (clusterIP: None), select the pod and expose port 2223"),
        qPrintable(message(import(closed))));

    auto broken = ImportKubernetes("kind: Pod\n  metadata: [", "bad.yaml");
    QVERIFY(!broken.ok());
    QVERIFY2(std::string(broken.status().message()).rfind("bad.yaml: line ", 0) == 0,
             broken.status().ToString().c_str());
  }

  // Nesting beyond the limit is refused naming the file, the line and the depth, whether
  // yaml-cpp's own guard (500 levels) or ClusterLab's limit stops it; at the limit it reads.
  void deepNestingIsRefusedWithItsDepth_data() {
    QTest::addColumn<QString>("form");
    QTest::addColumn<int>("depth");
    QTest::addColumn<QString>("expected");
    const QString limit = QString::number(kMaxYamlNesting);
    QTest::newRow("flow lists at the limit") << "flow" << kMaxYamlNesting << "";
    QTest::newRow("flow lists one deeper")
        << "flow" << kMaxYamlNesting + 1 << QString("deep.yaml: line 1: nested %1 levels deep").arg(limit.toInt() + 1);
    QTest::newRow("block maps one deeper")
        << "block" << kMaxYamlNesting + 1
        << QString("deep.yaml: line %1: nested %2 levels deep").arg(kMaxYamlNesting + 1).arg(kMaxYamlNesting + 1);
    QTest::newRow("flow lists 100,000 deep")
        << "flow" << 100000 << "deep.yaml: line 1: nested more than 500 levels deep";
    QTest::newRow("block maps 3,000 deep") << "block" << 3000 << "nested more than 500 levels deep";
  }
  void deepNestingIsRefusedWithItsDepth() {
    QFETCH(QString, form);
    QFETCH(int, depth);
    QFETCH(QString, expected);
    std::string text;
    if (form == "flow") {
      text = std::string(static_cast<size_t>(depth), '[') + std::string(static_cast<size_t>(depth), ']');
    } else {
      for (int i = 0; i < depth; ++i) text += std::string(static_cast<size_t>(i), ' ') + "a:\n";
    }
    const auto read = ReadYamlDocuments(text, "deep.yaml");
    if (expected.isEmpty()) {
      QVERIFY2(read.ok(), read.status().ToString().c_str());
      return;
    }
    QVERIFY(!read.ok());
    QCOMPARE(read.status().code(), absl::StatusCode::kInvalidArgument);
    const QString message = QString::fromStdString(std::string(read.status().message()));
    QVERIFY2(message.contains(expected), qPrintable(message));
    QVERIFY2(message.contains(QString("may nest %1 levels at most").arg(kMaxYamlNesting)), qPrintable(message));
  }

  // The command line does the same: export, change the project, import, and the cluster is back.
  void commandLineRoundTrip() {
    QTemporaryDir dir;
    const QString copy = dir.filePath("digits.clab");
    QVERIFY(QFile::copy(ClabProcess::sourceDir() + "/examples/projects/digits-mlp.clab", copy));
    QFile::setPermissions(copy, QFile::ReadOwner | QFile::WriteOwner);
    const ProgramResult exported = ClabProcess::clab({"export", copy, "--k8s", dir.filePath("k8s")});
    QVERIFY2(exported.exitCode == 0, qPrintable(exported.out + exported.err));
    QVERIFY2(exported.out.contains("clab-digits-pods.yaml") && exported.out.contains("clab-digits-tfjob.yaml"),
             qPrintable(exported.out));
    QVERIFY(WriteProjectCluster(copy.toStdString(), *ClusterSpec::Parse("ps=elsewhere:1;worker=elsewhere:2")).ok());
    const ProgramResult imported =
        ClabProcess::clab({"import", copy, "--k8s", dir.filePath("k8s/clab-digits-pods.yaml")});
    QVERIFY2(imported.exitCode == 0, qPrintable(imported.out + imported.err));
    auto project = ProjectFile::Read(copy.toStdString());
    QVERIFY2(project.ok(), project.status().ToString().c_str());
    QCOMPARE(QString::fromStdString(project->cluster.ToInline()),
             QString("ps=127.0.0.1:2223;worker=127.0.0.1:2222,127.0.0.1:2224"));
    QCOMPARE(QString::fromStdString(project->program), QString("digits-mlp"));
    const ProgramResult kubernetes = ClabProcess::clab(
        {"import", copy, "--k8s", dir.filePath("k8s/clab-digits-tfjob.yaml"), "--addresses", "kubernetes"});
    QVERIFY2(kubernetes.exitCode == 0, qPrintable(kubernetes.out + kubernetes.err));
    QVERIFY2(
        kubernetes.out.contains("ps=clab-digits-ps-0.default.svc:2223;worker=clab-digits-worker-0.default.svc:2222,"
                                "clab-digits-worker-1.default.svc:2222"),
        qPrintable(kubernetes.out));
  }
};

QTEST_GUILESS_MAIN(KubernetesManifestsTest)
#include "tst_kubernetes_manifests.moc"
