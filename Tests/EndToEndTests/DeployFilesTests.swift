import Foundation
import Pipeline
import Testing
import Yams

/// The files in deploy/: each parses, the Kubernetes objects pass their schemas (kubernetes-validate,
/// installed by `make deps`) and the "restricted" Pod Security level, the systemd unit rates OK in
/// `systemd-analyze security`, no example puts Kafka secrets on a command line, and what they name
/// (subcommands, flags, metrics, topics, groups, probe paths, volumes) exists.
@Suite("Deploy files")
struct DeployFilesTests {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL

    private func yaml(_ path: String) throws -> [Any] {
        let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        return try Array(Yams.load_all(yaml: text)).compactMap { $0 }
    }

    private func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The Kubernetes manifests: every `.yaml` file in deploy/kubernetes, as paths from the root.
    private func kubernetesFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("deploy/kubernetes").path)
            .filter { $0.hasSuffix(".yaml") }.sorted().map { "deploy/kubernetes/" + $0 }
    }

    /// Every object of every Kubernetes manifest, with the file it is in.
    private func kubernetesObjects() throws -> [(file: String, object: [String: Any])] {
        try kubernetesFiles().flatMap { file in try yaml(file).compactMap { $0 as? [String: Any] }.map { (file: file, object: $0) } }
    }

    /// The one object of `kind` named `name` in `file`.
    private func object(_ kind: String, _ name: String, in file: String) throws -> [String: Any] {
        try #require(
            try yaml(file).compactMap { $0 as? [String: Any] }.first { object in
                object["kind"] as? String == kind && (object["metadata"] as? [String: Any])?["name"] as? String == name
            }, "no \(kind)/\(name) in \(file)")
    }

    /// The worker's StatefulSet: its pod template and its one container.
    private func worker() throws -> (statefulSet: [String: Any], template: RestrictedPodSecurity.PodTemplate, container: [String: Any]) {
        let statefulSet = try object("StatefulSet", "iidbatch", in: "deploy/kubernetes/iidbatch.yaml")
        let template = try #require(RestrictedPodSecurity.podTemplates(in: statefulSet).first)
        let container = try #require((template.spec["containers"] as? [[String: Any]])?.first)
        return (statefulSet, template, container)
    }

    // MARK: Kubernetes

    /// The oldest Kubernetes the manifests are for: the PodDisruptionBudget's
    /// unhealthyPodEvictionPolicy is GA from 1.31 (schemas before 1.26 reject the field).
    static let oldestKubernetes = "1.31.0"

    @Test(
        "every Kubernetes object passes kubernetes-validate --strict for the oldest Kubernetes meant and the newest (KEDA's are checked below)",
        arguments: [oldestKubernetes, nil])
    func kubernetes(_ version: String?) async throws {
        let files = try kubernetesFiles()
        #expect(files.count >= 2, "\(files)")
        // Installed by `make deps`; found on PATH as a user would run it.
        let arguments = ["kubernetes-validate", "--strict"] + (version.map { ["--kubernetes-version", $0] } ?? [])
        let result = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), arguments + files.map { root.appendingPathComponent($0).path }, seconds: 120)
        #expect(result.status == 0, "kubernetes-validate (run make deps if it is missing or too old): \(result.output)")
        for (file, object) in try kubernetesObjects() {
            let kind = try #require(object["kind"] as? String)
            let name = try #require((object["metadata"] as? [String: Any])?["name"] as? String)
            // KEDA's and GKE's managed Prometheus's kinds are custom resources without a schema here.
            if let api = object["apiVersion"] as? String, api.hasPrefix("keda.sh/") || api.hasPrefix("monitoring.googleapis.com/") {
                #expect(result.output.contains("Couldn't find schema for kind \(kind)"), "\(file) \(kind)/\(name): \(result.output)")
            } else {
                #expect(result.output.contains("passed for resource \(kind.lowercased())/\(name)"), "\(file) \(kind)/\(name): \(result.output)")
            }
        }
    }

    @Test("every pod template in deploy/kubernetes meets the restricted Pod Security level")
    func restricted() throws {
        let templates = try kubernetesObjects().flatMap { RestrictedPodSecurity.podTemplates(in: $0.object) }
        #expect(templates.map(\.owner).contains("StatefulSet/iidbatch"), "\(templates.map(\.owner))")
        for template in templates {
            let violations = RestrictedPodSecurity.violations(template)
            #expect(violations.isEmpty, "\(template.owner): \(violations)")
        }
    }

    @Test("the restricted checker rejects the pod the manifest shipped before issue 32")
    func restrictedRejectsTheOldPod() throws {
        // The Deployment's pod as it was: non-root, but privilege escalation allowed, every
        // capability the runtime grants, and no seccomp profile.
        let old = """
            apiVersion: apps/v1
            kind: Deployment
            metadata: { name: iidbatch }
            spec:
              selector: { matchLabels: { app: iidbatch } }
              template:
                metadata: { labels: { app: iidbatch } }
                spec:
                  securityContext: { runAsNonRoot: true, runAsUser: 10001 }
                  containers:
                    - name: iidbatch
                      image: iidbatch:latest
                      args: [run, /etc/iidbatch/pipelines, -X, "group.instance.id=$(POD_NAME)"]
                      ports: [{ name: http, containerPort: 9090 }]
                      volumeMounts: [{ name: pipelines, mountPath: /etc/iidbatch/pipelines, readOnly: true }]
                  volumes:
                    - { name: pipelines, configMap: { name: iidbatch-pipelines } }
            """
        let document = try #require(try Yams.load(yaml: old) as? [String: Any])
        let template = try #require(RestrictedPodSecurity.podTemplates(in: document).first)
        let failed = Set(RestrictedPodSecurity.violations(template).map(\.check))
        #expect(failed == [.privilegeEscalation, .capabilities, .seccomp], "\(RestrictedPodSecurity.violations(template))")
    }

    @Test("each restricted check rejects the shipped pod with that one control broken", arguments: RestrictedPodSecurity.Check.allCases)
    func restrictedRejectsEachBreach(_ check: RestrictedPodSecurity.Check) throws {
        let compliant = try worker().template
        #expect(RestrictedPodSecurity.violations(compliant).isEmpty)
        var spec = compliant.spec
        var containers = try #require(spec["containers"] as? [[String: Any]])
        var container = containers[0]
        var context = container["securityContext"] as? [String: Any] ?? [:]
        var pod = spec["securityContext"] as? [String: Any] ?? [:]
        var volumes = spec["volumes"] as? [[String: Any]] ?? []
        var expected: Set<RestrictedPodSecurity.Check> = [check]
        switch check {
        case .hostProcess: context["windowsOptions"] = ["hostProcess": true]
        case .hostNamespaces: spec["hostPID"] = true
        case .privilegedContainers: context["privileged"] = true
        case .capabilities:
            var capabilities = context["capabilities"] as? [String: Any] ?? [:]
            capabilities["add"] = ["NET_BIND_SERVICE", "SYS_ADMIN"]
            context["capabilities"] = capabilities
        case .hostPathVolumes:
            volumes.append(["name": "host", "hostPath": ["path": "/var/run"]])
            expected.insert(.volumeTypes)  // hostPath is no allowed volume type either
        case .hostPorts:
            var ports = try #require(container["ports"] as? [[String: Any]])
            ports[0]["hostPort"] = 9090
            container["ports"] = ports
        case .appArmor: context["appArmorProfile"] = ["type": "Unconfined"]
        case .seLinux: pod["seLinuxOptions"] = ["type": "spc_t"]
        case .procMountType: context["procMount"] = "Unmasked"
        case .seccomp: context["seccompProfile"] = ["type": "Unconfined"]
        case .sysctls: pod["sysctls"] = [["name": "kernel.msgmax", "value": "65536"]]
        case .volumeTypes: volumes.append(["name": "shared", "nfs": ["server": "nfs.example", "path": "/"]])
        case .privilegeEscalation: context["allowPrivilegeEscalation"] = nil
        case .runningAsNonRoot: context["runAsNonRoot"] = false
        case .runningAsNonRootUser: context["runAsUser"] = 0
        }
        container["securityContext"] = context
        containers[0] = container
        spec["containers"] = containers
        spec["securityContext"] = pod
        spec["volumes"] = volumes
        let violations = RestrictedPodSecurity.violations(RestrictedPodSecurity.PodTemplate(owner: "mutated", metadata: compliant.metadata, spec: spec))
        #expect(Set(violations.map(\.check)) == expected, "\(violations)")
    }

    @Test("a StatefulSet keeps the pod names static group membership is keyed on; probes, scraping, limits and a disruption budget")
    func statefulSet() throws {
        let (statefulSet, template, container) = try worker()
        let spec = try #require(statefulSet["spec"] as? [String: Any])
        #expect(spec["podManagementPolicy"] as? String == "Parallel")
        let serviceName = try #require(spec["serviceName"] as? String)
        let service = try object("Service", serviceName, in: "deploy/kubernetes/iidbatch.yaml")
        #expect((service["spec"] as? [String: Any])?["clusterIP"] as? String == "None", "the governing service is headless")
        // group.instance.id is the pod's own name, set from the environment after POD_NAME (a
        // $(VAR) reference expands only variables defined before it).
        let environment = try #require(container["env"] as? [[String: Any]])
        let names = environment.compactMap { $0["name"] as? String }
        let podName = try #require(names.firstIndex(of: "POD_NAME"))
        let instance = try #require(names.firstIndex(of: "IIDBATCH_KAFKA_GROUP_INSTANCE_ID"))
        #expect(podName < instance)
        #expect(environment[instance]["value"] as? String == "$(POD_NAME)")
        let field = (environment[podName]["valueFrom"] as? [String: Any])?["fieldRef"] as? [String: Any]
        #expect(field?["fieldPath"] as? String == "metadata.name")
        #expect(names.contains("GOOGLE_CLOUD_PROJECT"), "the Firebase project is named, not taken from the cluster's credential")
        let manifest = try text("deploy/kubernetes/iidbatch.yaml")
        for fragment in ["path: /livez", "path: /readyz", "prometheus.io/scrape: \"true\"", "iam.gke.io/gcp-service-account:"] {
            #expect(manifest.contains(fragment), "\(fragment)")
        }
        let arguments = try #require(container["args"] as? [String])
        #expect(arguments.first == "run" && arguments.contains("--http-port"))
        #expect((container["securityContext"] as? [String: Any])?["readOnlyRootFilesystem"] as? Bool == true)
        let resources = try #require(container["resources"] as? [String: Any])
        for part in ["requests", "limits"] {
            let values = try #require(resources[part] as? [String: Any], "\(part)")
            #expect(values["cpu"] != nil && values["memory"] != nil, "\(part): \(values)")
        }
        let budget = try object("PodDisruptionBudget", "iidbatch", in: "deploy/kubernetes/iidbatch.yaml")
        let selector = ((budget["spec"] as? [String: Any])?["selector"] as? [String: Any])?["matchLabels"] as? [String: String]
        let labels = try #require(template.metadata["labels"] as? [String: String])
        #expect(selector != nil && selector!.allSatisfy { labels[$0.key] == $0.value }, "the budget selects the workers: \(String(describing: selector))")
    }

    @Test(
        "a slow start is not killed: a startup probe on /livez gives the start two minutes (the metadata server, Kafka, the topics and the control topic each wait up to 10-15 s) before liveness counts; no service-link variables reach the IIDBATCH_ prefix"
    )
    func startAndEnvironment() throws {
        let (_, template, container) = try worker()
        let startup = try #require(container["startupProbe"] as? [String: Any], "no startupProbe: liveness (60 s) could kill a start")
        #expect((startup["httpGet"] as? [String: Any])?["path"] as? String == "/livez")
        let budget = (startup["periodSeconds"] as? Int ?? 10) * (startup["failureThreshold"] as? Int ?? 3)
        #expect(budget >= 120, "startup budget \(budget) s")
        // Kubernetes adds <SERVICE>_SERVICE_HOST and friends for every Service of the namespace:
        // one named iidbatch-kafka… would set IIDBATCH_KAFKA_SERVICE_HOST, a librdkafka property
        // `service.host` that stops every start.
        #expect(template.spec["enableServiceLinks"] as? Bool == false)
        // The worker holds up to max-in-flight-bytes (64 MiB) and a 64 MiB read-ahead per pipeline.
        let limits = (container["resources"] as? [String: Any])?["limits"] as? [String: Any]
        #expect(limits?["memory"] as? String == "1Gi", "\(String(describing: limits))")
    }

    @Test("the disruption budget lets unready workers be evicted: /readyz fails while the breaker is open, on every pod at once in an outage")
    func budgetEvictsUnreadyPods() throws {
        // A budget counts only Ready pods as healthy. /readyz follows the circuit breaker, so in a
        // Google outage every worker is unready together, and with the default policy
        // (IfHealthyBudget) no eviction would be allowed: drains and node upgrades would stall.
        let (_, _, container) = try worker()
        let readiness = try #require(container["readinessProbe"] as? [String: Any])
        #expect((readiness["httpGet"] as? [String: Any])?["path"] as? String == "/readyz")
        let budget = try object("PodDisruptionBudget", "iidbatch", in: "deploy/kubernetes/iidbatch.yaml")
        let spec = try #require(budget["spec"] as? [String: Any])
        #expect(spec["unhealthyPodEvictionPolicy"] as? String == "AlwaysAllow", "\(spec)")
        #expect(spec["maxUnavailable"] as? Int == 1, "\(spec)")
    }

    @Test("the Kubernetes objects, every kubectl command that goes with them and the workload identity binding name one namespace")
    func oneNamespace() throws {
        let account = try object("ServiceAccount", "iidbatch", in: "deploy/kubernetes/iidbatch.yaml")
        let namespace = try #require((account["metadata"] as? [String: Any])?["namespace"] as? String, "the ServiceAccount names its namespace")
        for (file, object) in try kubernetesObjects() {
            let metadata = object["metadata"] as? [String: Any] ?? [:]
            #expect(metadata["namespace"] as? String == namespace, "\(file) \(object["kind"] ?? "?")/\(metadata["name"] ?? "?")")
        }
        // GKE workload identity binds PROJECT.svc.id.goog[NAMESPACE/SERVICE_ACCOUNT].
        let readme = try text("README.md")
        let member = try #require(readme.firstMatch(of: /svc\.id\.goog\[([^\/\]]+)\/([^\]]+)\]/), "README's workload identity binding")
        #expect(member.1 == namespace && member.2 == "iidbatch", "\(member.0)")
        // Every kubectl command in README and in the manifests' comments, continuation lines joined.
        var commands: [String] = []
        for (place, source) in [("README.md", readme)] + (try kubernetesFiles().map { ($0, try text($0)) }) {
            let plain = source.replacing(/\n#? */, with: "\n").replacing(/\\\n/, with: " ")
            // A command has a verb and arguments; prose names "`kubectl apply`" alone.
            commands += plain.matches(of: /kubectl (?:create|apply|annotate|label|scale|delete|edit|rollout) [^\n`]+/).map { "\(place): \($0.0)" }
        }
        #expect(commands.count >= 8, "\(commands)")
        for command in commands {
            if command.contains("kubectl create namespace ") || command.contains("kubectl label namespace ") {
                #expect(command.contains("namespace \(namespace)"), "\(command)")
            } else {
                #expect(command.contains(" -n \(namespace)") || command.contains(" --namespace \(namespace)"), "no -n \(namespace): \(command)")
            }
        }
    }

    @Test("GKE's managed Prometheus: the PodMonitoring scrapes the workers' metrics; the README's command wraps alerts.yaml in a Rules resource")
    func gkeManagedPrometheus() async throws {
        let monitoring = try object("PodMonitoring", "iidbatch", in: "deploy/kubernetes/gke-podmonitoring.yaml")
        let spec = try #require(monitoring["spec"] as? [String: Any])
        let selector = try #require((spec["selector"] as? [String: Any])?["matchLabels"] as? [String: String])
        let (_, template, container) = try worker()
        let labels = try #require((template.metadata["labels"] as? [String: String]))
        #expect(selector.allSatisfy { labels[$0.key] == $0.value }, "\(selector) selects the worker pods \(labels)")
        let endpoint = try #require((spec["endpoints"] as? [[String: Any]])?.first)
        let ports = (container["ports"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(ports.contains(endpoint["port"] as? String ?? "?") && endpoint["path"] as? String == "/metrics", "\(endpoint) \(ports)")

        // The README's Rules command, run as written up to kubectl: its groups are alerts.yaml's.
        let readme = try text("README.md")
        let wrap = try #require(readme.firstMatch(of: /\{ printf '[^\n]*\n *sed [^\n]*; \}/), "the README's Rules command")
        let result = try await ChildProcess.run(
            URL(fileURLWithPath: "/bin/bash"), ["-c", "cd \(root.path) && " + String(wrap.0).replacing(/\n */, with: "\n")])
        #expect(result.status == 0, "\(result.output)")
        let rules = try #require(try Yams.load(yaml: result.output) as? [String: Any], "\(result.output)")
        #expect(rules["apiVersion"] as? String == "monitoring.googleapis.com/v1" && rules["kind"] as? String == "Rules")
        let wrapped = try #require((rules["spec"] as? [String: Any])?["groups"] as? [Any])
        let original = try #require((try yaml("deploy/prometheus/alerts.yaml").first as? [String: Any])?["groups"] as? [Any])
        #expect(NSArray(array: wrapped).isEqual(to: original), "the Rules resource holds alerts.yaml's groups unchanged")
    }

    @Test("KEDA scales the StatefulSet on every shipped pipeline's lag, counted from earliest, authenticated from a Secret")
    func keda() throws {
        let objects = try yaml("deploy/kubernetes/keda-scaledobject.yaml").compactMap { $0 as? [String: Any] }
        #expect(objects.allSatisfy { $0["apiVersion"] as? String == "keda.sh/v1alpha1" })
        let scaled = try #require(objects.first { $0["kind"] as? String == "ScaledObject" })
        let authentication = try #require(objects.first { $0["kind"] as? String == "TriggerAuthentication" })
        let authenticationName = try #require((authentication["metadata"] as? [String: Any])?["name"] as? String)
        let references = try #require((authentication["spec"] as? [String: Any])?["secretTargetRef"] as? [[String: Any]])
        let parameters = Set(references.compactMap { $0["parameter"] as? String })
        #expect(parameters.isSuperset(of: ["sasl", "username", "password", "tls"]), "\(parameters)")
        #expect(references.allSatisfy { ($0["name"] as? String)?.isEmpty == false && ($0["key"] as? String)?.isEmpty == false })

        let spec = try #require(scaled["spec"] as? [String: Any])
        let target = try #require(spec["scaleTargetRef"] as? [String: Any])
        #expect(target["kind"] as? String == "StatefulSet" && target["apiVersion"] as? String == "apps/v1")
        _ = try object("StatefulSet", try #require(target["name"] as? String), in: "deploy/kubernetes/iidbatch.yaml")
        let triggers = try #require(spec["triggers"] as? [[String: Any]])
        for trigger in triggers {
            let metadata = trigger["metadata"] as? [String: Any] ?? [:]
            // The workers read from earliest: a new group's whole topic is its backlog.
            #expect(metadata["offsetResetPolicy"] as? String == "earliest", "\(metadata)")
            #expect((trigger["authenticationRef"] as? [String: Any])?["name"] as? String == authenticationName, "\(trigger)")
            #expect(metadata.keys.allSatisfy { !["username", "password", "sasl", "tls"].contains($0) }, "credentials come from the TriggerAuthentication")
        }
        let pairs = Set(
            triggers.compactMap { trigger -> String? in
                guard trigger["type"] as? String == "kafka", let metadata = trigger["metadata"] as? [String: Any],
                    let group = metadata["consumerGroup"] as? String, let topic = metadata["topic"] as? String, metadata["lagThreshold"] != nil
                else { return nil }
                return "\(group) \(topic)"
            })
        let pipelines = try PipelineFile.loadAll(root.appendingPathComponent("pipelines").path)
        #expect(pairs == Set(pipelines.map { "\($0.group) \($0.requestTopic)" }))
    }

    @Test("KEDA owns the replica count and scales down slowly; the StatefulSet does not reset it on every apply")
    func kedaOwnsTheReplicas() throws {
        // A replicas field in the StatefulSet would be applied over KEDA's count by every
        // `kubectl apply`, and each reset idles the removed pods' partitions for session.timeout.ms.
        let (statefulSet, _, _) = try worker()
        #expect((statefulSet["spec"] as? [String: Any])?["replicas"] == nil, "no replicas in the StatefulSet: KEDA or kubectl scale sets them")
        let scaled = try object("ScaledObject", "iidbatch", in: "deploy/kubernetes/keda-scaledobject.yaml")
        let spec = try #require(scaled["spec"] as? [String: Any])
        // cooldownPeriod only applies to scaling to zero; with minReplicaCount >= 1 the HPA's
        // scale-down behaviour is what slows removals.
        let minimum = try #require(spec["minReplicaCount"] as? Int)
        #expect(minimum >= 1 && spec["cooldownPeriod"] == nil, "\(spec)")
        let behavior = try #require(
            ((spec["advanced"] as? [String: Any])?["horizontalPodAutoscalerConfig"] as? [String: Any])?["behavior"] as? [String: Any], "\(spec)")
        let scaleDown = try #require(behavior["scaleDown"] as? [String: Any], "\(behavior)")
        let window = try #require(scaleDown["stabilizationWindowSeconds"] as? Int)
        #expect(window >= 300, "a scale-down follows the highest recommendation of at least 5 minutes: \(window)")
        let policies = try #require(scaleDown["policies"] as? [[String: Any]], "\(scaleDown)")
        #expect(!policies.isEmpty)
        for policy in policies {
            // One pod at a time, each removal idling its partitions for session.timeout.ms (45 s).
            #expect(policy["type"] as? String == "Pods" && policy["value"] as? Int == 1, "\(policy)")
            #expect((policy["periodSeconds"] as? Int ?? 0) >= 60, "\(policy)")
        }
    }

    // MARK: Kafka secrets and command lines

    /// Every iidbatch command line the deploy files hold, after the binary: where it is, and its words.
    private func commandLines() throws -> [(place: String, words: [String])] {
        var lines: [(place: String, words: [String])] = []
        let compose = try #require(try yaml("deploy/compose.yaml").first as? [String: Any])
        for (name, service) in (compose["services"] as? [String: Any] ?? [:]) {
            guard let service = service as? [String: Any], (service["image"] as? String)?.hasPrefix("iidbatch") == true else { continue }
            lines.append(("compose \(name)", try #require(service["command"] as? [String], "compose \(name) has no command")))
        }
        for (file, object) in try kubernetesObjects() {
            for template in RestrictedPodSecurity.podTemplates(in: object) {
                for container in template.spec["containers"] as? [[String: Any]] ?? [] where (container["image"] as? String)?.hasPrefix("iidbatch") == true {
                    lines.append(("\(file) \(template.owner)", try #require(container["args"] as? [String])))
                }
            }
        }
        let unit = try text("deploy/systemd/iidbatch.service")
        let execStart = try #require(unit.firstMatch(of: /\nExecStart=(\S+)\s+(.*)/))
        #expect(execStart.1 == "/usr/local/bin/iidbatch")
        lines.append(("systemd ExecStart", execStart.2.split(separator: " ").map(String.init)))
        let dockerfile = try text("deploy/Dockerfile")
        let command = try #require(dockerfile.firstMatch(of: /\nCMD (\[.*\])/))
        lines.append(("Dockerfile CMD", try #require(try JSONSerialization.jsonObject(with: Data(command.1.utf8)) as? [String])))
        return lines
    }

    @Test("no deploy example puts Kafka settings on a command line: a properties file from a Secret or a credential, the brokers at most")
    func kafkaSecretsStayOffTheCommandLine() throws {
        let lines = try commandLines()
        #expect(lines.count >= 5, "\(lines.map(\.place))")
        for (place, words) in lines {
            #expect(!words.contains("-X") && !words.contains { $0.hasPrefix("-X") }, "\(place): \(words)")
            #expect(!words.contains { $0.contains("sasl") || $0.contains("password") || $0.contains("ssl.key") }, "\(place): \(words)")
        }
        // Kubernetes: -F names a file in a mounted Secret that holds it.
        let (_, template, container) = try worker()
        let arguments = try #require(container["args"] as? [String])
        let file = try #require(arguments.firstIndex(of: "-F").map { arguments[$0 + 1] }, "the worker reads -F")
        let mounts = try #require(container["volumeMounts"] as? [[String: Any]])
        let mount = try #require(mounts.first { file.hasPrefix(($0["mountPath"] as? String ?? "?") + "/") }, "\(file) is on no mount")
        let volume = try #require(
            (template.spec["volumes"] as? [[String: Any]])?.first { $0["name"] as? String == mount["name"] as? String }?["secret"] as? [String: Any],
            "\(file) is not in a Secret")
        let items = (volume["items"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
        #expect(items.isEmpty || items.contains(String(file.dropFirst((mount["mountPath"] as? String ?? "").count + 1))), "\(items)")
        // systemd: -F names a credential systemd loads from a root-only file.
        let unit = try text("deploy/systemd/iidbatch.service")
        let credential = try #require(unit.firstMatch(of: /-F \$\{CREDENTIALS_DIRECTORY\}\/(\S+)/)).1
        #expect(unit.contains("\nLoadCredential=\(credential):/"), "LoadCredential= for \(credential)")
        #expect(!unit.contains("IIDBATCH_KAFKA_SASL"), "no Kafka secret in the unit's environment")
    }

    @Test("every iidbatch command line in deploy/ uses subcommands and flags the built binary has")
    func commandLinesUseRealFlags() async throws {
        var helps: [String: String] = [:]
        for (place, words) in try commandLines() {
            let subcommand = try #require(words.first)
            if helps[subcommand] == nil {
                let result = try await ChildProcess.run(try Programs.iidbatch, [subcommand, "--help"], seconds: 120)
                #expect(result.status == 0, "\(place): iidbatch \(subcommand) --help: \(result.output)")
                helps[subcommand] = result.output
            }
            let help = helps[subcommand] ?? ""
            for word in words.dropFirst() where word.hasPrefix("-") {
                let flag = String(word.split(separator: "=", maxSplits: 1)[0])
                let listed = try Regex("(^|[\\s,\\[])" + NSRegularExpression.escapedPattern(for: flag) + "([\\s,=<\\]]|$)")
                #expect(help.contains(listed), "\(place): iidbatch \(subcommand) has no \(flag)")
            }
        }
    }

    // MARK: systemd

    @Test("systemd-analyze security rates the unit OK or better (exposure below 5.0)")
    func systemdSecurity() async throws {
        let unit = root.appendingPathComponent("deploy/systemd/iidbatch.service").path
        // --threshold is in tenths: 49 fails the command for an exposure of 5.0 or more.
        let result = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["systemd-analyze", "security", "--offline=true", "--threshold=49", "--no-pager", unit])
        #expect(result.status == 0, "systemd-analyze (make deps installs systemd): \(result.output)")
        let overall = try #require(result.output.firstMatch(of: /Overall exposure level for iidbatch.service: ([0-9.]+) (\w+)/), "\(result.output)")
        let exposure = try #require(Double(overall.1))
        #expect(exposure < 5.0 && ["OK", "SAFE", "PERFECT"].contains(String(overall.2)), "\(overall.0)")
        for setting in [
            "MemoryDenyWriteExecute=true", "SystemCallFilter=@system-service", "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX AF_NETLINK\n",
            "CapabilityBoundingSet=\n",
        ] {
            #expect(try text("deploy/systemd/iidbatch.service").contains(setting), "\(setting)")
        }
    }

    @Test("the systemd unit serves /metrics and the health endpoints on the port the other deploy files scrape")
    func systemdServesMetrics() throws {
        let unit = try text("deploy/systemd/iidbatch.service")
        let execStart = try #require(unit.firstMatch(of: /\nExecStart=\S+\s+(.*)/)).1.split(separator: " ").map(String.init)
        let port = try #require(execStart.firstIndex(of: "--http-port").map { execStart[$0 + 1] }, "no --http-port: \(execStart)")
        // The same port as the StatefulSet's and compose's, and the systemd host the alert tests model.
        let (_, _, container) = try worker()
        let ports = try #require(container["ports"] as? [[String: Any]])
        #expect(ports.contains { "\($0["containerPort"] ?? "")" == port }, "\(port) vs \(ports)")
        #expect(try text("deploy/prometheus/alerts-test.yaml").contains("instance=\"host:\(port)\""), "\(port)")
    }

    @Test("systemd restarts the unit after a crash or an outage (69), not after a usage, data, input or configuration error")
    func systemdRestartPolicy() throws {
        let unit = try text("deploy/systemd/iidbatch.service")
        #expect(unit.contains("\nRestart=on-failure\n"))
        let line = try #require(unit.firstMatch(of: /\nRestartPreventExitStatus=([^\n]*)\n/), "no RestartPreventExitStatus=")
        let prevented = Set(line.1.split(separator: " ").compactMap { Int($0) })
        // sysexits as README's exit table gives them: 64 usage, 65 data, 66 no input, 78
        // configuration are errors a restart repeats; 69 (a broker or Google did not answer) and
        // 70 (internal) may pass.
        #expect(prevented == [64, 65, 66, 78], "\(line.1)")
        let readme = try text("README.md")
        for (code, name) in [(64, "EX_USAGE"), (65, "EX_DATAERR"), (66, "EX_NOINPUT"), (78, "EX_CONFIG"), (69, "EX_UNAVAILABLE")] {
            #expect(readme.contains(try Regex("\\n\\| \(code) \\| [^\\n]*`\(name)`")), "README's exit table: \(code) \(name)")
        }
    }

    @Test("systemd-analyze verify finds nothing to say about the unit, its ExecStart pointed at the built binary")
    func systemdVerify() async throws {
        // verify checks that ExecStart's binary exists; here it is not installed, so a copy of
        // the unit names the one just built. Everything else is the file as shipped.
        let unit = try text("deploy/systemd/iidbatch.service")
        #expect(unit.contains("ExecStart=/usr/local/bin/iidbatch "))
        let folder = try OperatorCommand.temporaryFolder("systemd")
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appendingPathComponent("iidbatch.service")
        try unit.replacingOccurrences(of: "ExecStart=/usr/local/bin/iidbatch ", with: "ExecStart=\(try Programs.iidbatch.path) ").write(
            to: copy, atomically: true, encoding: .utf8)
        let result = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["systemd-analyze", "verify", "--man=no", copy.path])
        #expect(result.status == 0, "\(result.output)")
        // verify exits 0 on unknown keys and bad values too; it names the file when it warns.
        #expect(!result.output.contains("iidbatch.service"), "\(result.output)")
    }

    // MARK: compose and the image

    @Test("compose runs Kafka in KRaft mode, the emulator and run; the key's volume, hosts and ports agree with the image")
    func compose() throws {
        let document = try #require(try yaml("deploy/compose.yaml").first as? [String: Any])
        let services = try #require(document["services"] as? [String: Any])
        let kafka = try #require(services["kafka"] as? [String: Any])
        #expect((kafka["image"] as? String)?.hasPrefix("apache/kafka:") == true)
        let environment = try #require(kafka["environment"] as? [String: Any])
        #expect((environment["KAFKA_PROCESS_ROLES"] as? String)?.contains("controller") == true, "KRaft: no ZooKeeper")
        let emulatorService = try #require(services["emulator"] as? [String: Any])
        let workerService = try #require(services["iidbatch"] as? [String: Any])
        let emulator = try #require(emulatorService["command"] as? [String])
        let run = try #require(workerService["command"] as? [String])
        #expect(emulator.first == "emulator" && run.first == "run" && run.contains("--http-port"))
        func value(_ words: [String], _ flag: String) throws -> String {
            try #require(words.firstIndex(of: flag).map { words[$0 + 1] }, "\(flag) in \(words)")
        }
        // The workers reach Kafka on a listener it advertises under its service name.
        let brokers = try value(run, "--brokers")
        #expect((environment["KAFKA_ADVERTISED_LISTENERS"] as? String)?.contains("://\(brokers)") == true, "\(brokers)")
        #expect(try value(run, "--backend-url") == "http://emulator:\(try value(emulator, "--port"))")

        // The key: written by the emulator into a named volume the workers mount, on a directory
        // the image's user owns (Docker creates a named volume with the image directory's owner).
        let dockerfile = try text("deploy/Dockerfile")
        let user = try #require(dockerfile.firstMatch(of: /\nUSER ([0-9]+)(:[0-9]+)?\n/)).1
        let owned = Set(dockerfile.matches(of: /install -d -o ([0-9]+) -g [0-9]+ -m 07[0-7]0 (\S+)/).filter { $0.1 == user }.map { String($0.2) })
        func mount(_ service: [String: Any], holding path: String) throws -> (volume: String, target: String) {
            let mounts = (service["volumes"] as? [String] ?? []).map { $0.split(separator: ":").map(String.init) }
            let found = try #require(mounts.first { $0.count >= 2 && path.hasPrefix($0[1] + "/") }, "no volume holds \(path)")
            return (found[0], found[1])
        }
        let written = try mount(emulatorService, holding: try value(emulator, "--write-key"))
        let read = try mount(workerService, holding: try value(run, "--credentials"))
        #expect(try value(emulator, "--write-key") == (try value(run, "--credentials")))
        #expect(written.volume == read.volume && (document["volumes"] as? [String: Any])?[written.volume] != nil, "a named volume: \(written.volume)")
        #expect(owned.contains(written.target), "the image gives uid \(user) \(owned.sorted()), not \(written.target)")
        for service in [emulatorService, workerService] {
            #expect(service["user"] == nil || "\(service["user"]!)".hasPrefix(String(user)), "the services run as the image's user")
        }
        let pipelines = try #require((workerService["volumes"] as? [String])?.first { $0.contains(":/etc/iidbatch/pipelines") })
        let source = root.appendingPathComponent("deploy").appendingPathComponent(String(pipelines.split(separator: ":")[0])).standardizedFileURL
        #expect(FileManager.default.fileExists(atPath: source.appendingPathComponent("deletions.yaml").path), "\(source.path)")
    }

    @Test("compose creates exactly the shipped pipelines' topics, the control and batch topics, as README's table gives them, before the workers start")
    func composeCreatesTopics() throws {
        let document = try #require(try yaml("deploy/compose.yaml").first as? [String: Any])
        let services = try #require(document["services"] as? [String: Any])
        // The workers wait for the one-shot service that creates the topics to have finished.
        let worker = try #require(services["iidbatch"] as? [String: Any])
        let dependencies = try #require(worker["depends_on"] as? [String: Any], "depends_on with conditions")
        let initName = try #require(
            dependencies.first { ($0.value as? [String: Any])?["condition"] as? String == "service_completed_successfully" }?.key,
            "\(dependencies)")
        let initService = try #require(services[initName] as? [String: Any])
        #expect((initService["image"] as? String) == (services["kafka"] as? [String: Any])?["image"] as? String, "kafka-topics.sh of the broker's image")
        #expect(initService["restart"] == nil || initService["restart"] as? String == "no", "one shot")
        let script = try #require((initService["command"] as? [String])?.last, "\(initService)")
        #expect(script.contains("kafka-topics.sh") && script.contains("--if-not-exists"), "\(script)")
        // One `create TOPIC PARTITIONS [compact]` line per topic.
        var created: [String: (partitions: Int, policy: String)] = [:]
        for line in script.matches(of: /\ncreate ([A-Za-z0-9._-]+) ([0-9]+)( compact)?(?=\n|$)/) {
            #expect(created[String(line.1)] == nil, "\(line.1) twice")
            created[String(line.1)] = (Int(line.2)!, line.3 == nil ? "delete" : "compact")
        }

        let pipelines = try PipelineFile.loadAll(root.appendingPathComponent("pipelines").path)
        var named: [String: String] = [ControlTopic.defaultName: "compact", BatchTopic.defaultName: "compact"]
        for pipeline in pipelines {
            for topic in [pipeline.requestTopic, pipeline.outcomeTopic, pipeline.deadLetterTopic] { named[topic] = "delete" }
            if pipeline.ops?.contains(.groupsExport) ?? true { named[pipeline.exportTopic] = "compact" }
        }
        #expect(Set(created.keys) == Set(named.keys), "created \(created.keys.sorted()), named \(named.keys.sorted())")
        // README's "Kafka topics" table owns the partitions and cleanup policies; compose follows it.
        let readme = try text("README.md")
        for (topic, policy) in named {
            let row = try #require(
                readme.firstMatch(of: try Regex("\\n\\| `\(NSRegularExpression.escapedPattern(for: topic))` \\| [^|]+ \\| ([0-9]+) \\| (\\w+) \\|")),
                "README's topic table has no \(topic)")
            let partitions = try #require(row.output[1].substring.flatMap { Int($0) })
            #expect(created[topic]?.partitions == partitions, "\(topic): \(String(describing: created[topic])) vs README's \(partitions)")
            #expect(created[topic]?.policy == policy && row.output[2].substring.map(String.init) == policy, "\(topic): \(policy)")
        }
    }

    @Test("the Dockerfile passes IIDBATCH_COMMIT to the build, which stamps the commit")
    func dockerfileStampsTheCommit() throws {
        let dockerfile = try text("deploy/Dockerfile")
        let build = try #require(dockerfile.range(of: "FROM swift:").map { dockerfile[$0.lowerBound...] })
        let argument = try #require(build.range(of: "\nARG IIDBATCH_COMMIT"), "ARG IIDBATCH_COMMIT in the build stage")
        let step = try #require(build[argument.upperBound...].firstMatch(of: /\nRUN ([^\n]*swift build[^\n]*)/), "a swift build step after the ARG")
        #expect(step.1.contains("IIDBATCH_COMMIT=\"${IIDBATCH_COMMIT}\""), "\(step.1)")
        #expect(dockerfile.contains("COPY Package.swift Package.resolved ./"), "the image builds the pinned dependencies")
    }

    // MARK: metrics and toolchains

    @Test("the alert rules and the dashboard name only metrics iidbatch exports")
    func metricNames() throws {
        let known = Set(MetricName.allCases.map(\.rawValue))
        let expressions = try AlertRuleFile().alerts.map(\.expression)
        #expect(expressions.count == 7)
        let dashboard = try #require(try JSONSerialization.jsonObject(with: Data(text("deploy/grafana/iidbatch-dashboard.json").utf8)) as? [String: Any])
        let targets = ((dashboard["panels"] as? [[String: Any]]) ?? []).flatMap { ($0["targets"] as? [[String: Any]]) ?? [] }.compactMap {
            $0["expr"] as? String
        }
        #expect(targets.count >= 10)
        var used: Set<String> = []
        for expression in expressions + targets { used.formUnion(AlertRuleFile.metrics(in: expression)) }
        #expect(used.subtracting(known).isEmpty, "unknown metrics: \(used.subtracting(known).sorted())")
        #expect(used.contains(MetricName.consumerGroupLag.rawValue) && used.contains(MetricName.circuitBreakerOpen.rawValue))
    }

    @Test("the image's Swift, the package's swift-tools-version and what the code needs agree (issue 32)")
    func toolchainsAgree() throws {
        func version(_ text: Substring) -> [Int] { text.split(separator: ".").compactMap { Int($0) } }
        let package = try text("Package.swift")
        let tools = try #require(package.firstMatch(of: /\/\/ swift-tools-version:\s*([0-9.]+)/)).1
        let dockerfile = try text("deploy/Dockerfile")
        let image = try #require(dockerfile.firstMatch(of: /FROM swift:([0-9.]+)-/)).1
        #expect(version(image).lexicographicallyPrecedes(version(tools)) == false, "the image's Swift \(image) is older than swift-tools-version \(tools)")
        // Span and String.UTF8View.span came with Swift 6.2: code that uses them needs 6.2 tools.
        let sources = FileManager.default.enumerator(atPath: root.appendingPathComponent("Sources").path)?.compactMap { $0 as? String } ?? []
        let usesSpan = try sources.filter { $0.hasSuffix(".swift") }.contains { path in
            try text("Sources/" + path).contains(/\bSpan<|\.span\b/)
        }
        if usesSpan { #expect(!version(tools).lexicographicallyPrecedes([6, 2]), "the code uses Span (Swift 6.2), the tools say \(tools)") }
        #expect(package.contains(".macOS(.v26)") || !usesSpan, "on Apple platforms Span needs macOS 26: platforms should say so")
    }
}
