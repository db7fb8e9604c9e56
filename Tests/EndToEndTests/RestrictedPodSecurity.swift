import Foundation

/// The Pod Security Standards' "restricted" level as of Kubernetes v1.32, checked offline over a pod
/// spec parsed from YAML: what the API server's PodSecurity admission enforces on a namespace
/// labelled `pod-security.kubernetes.io/enforce: restricted`, one named check per control of the
/// baseline and restricted policies (https://kubernetes.io/docs/concepts/security/pod-security-standards/).
/// Where restricted tightens a baseline control (capabilities, seccomp) the check applies the
/// restricted form. Linux pods only: the Windows exemptions (`spec.os.name: windows`) are not modelled,
/// so a Windows pod is judged as a Linux one (stricter, never laxer).
struct RestrictedPodSecurity {
    /// One control of the level, named as the Pod Security Standards name it.
    enum Check: String, CaseIterable, Sendable, CustomStringConvertible {
        case hostProcess = "HostProcess"
        case hostNamespaces = "Host Namespaces"
        case privilegedContainers = "Privileged Containers"
        case capabilities = "Capabilities"
        case hostPathVolumes = "HostPath Volumes"
        case hostPorts = "Host Ports"
        case appArmor = "AppArmor"
        case seLinux = "SELinux"
        case procMountType = "/proc Mount Type"
        case seccomp = "Seccomp"
        case sysctls = "Sysctls"
        case volumeTypes = "Volume Types"
        case privilegeEscalation = "Privilege Escalation"
        case runningAsNonRoot = "Running as Non-root"
        case runningAsNonRootUser = "Running as Non-root user"

        /// The control's name in the Pod Security Standards.
        var description: String { rawValue }
    }

    /// One failed control: which, and the offending field and value.
    struct Violation: CustomStringConvertible, Sendable {
        /// The control that failed.
        let check: Check
        /// The offending field (a path in the pod spec) and its value.
        let detail: String

        /// `Control: detail`, as a test failure names it.
        var description: String { "\(check): \(detail)" }
    }

    /// A pod template found in a Kubernetes object: where it came from, its metadata and its spec.
    struct PodTemplate {
        /// `kind/name` of the object that holds it.
        let owner: String
        /// The pod's metadata (annotations may carry AppArmor and seccomp settings).
        let metadata: [String: Any]
        /// The pod's spec.
        let spec: [String: Any]
    }

    /// Volume sources the level allows; any other (hostPath, nfs, iscsi, ...) fails Volume Types.
    static let allowedVolumeTypes: Set<String> = [
        "configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim", "projected", "secret",
    ]
    /// The only capability a container may add.
    static let addableCapabilities: Set<String> = ["NET_BIND_SERVICE"]
    /// The sysctls the baseline allows (the "safe" set, v1.32).
    static let safeSysctls: Set<String> = [
        "kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.ip_unprivileged_port_start", "net.ipv4.tcp_syncookies",
        "net.ipv4.ping_group_range", "net.ipv4.ip_local_reserved_ports", "net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout",
        "net.ipv4.tcp_keepalive_intvl", "net.ipv4.tcp_keepalive_probes",
    ]
    /// The SELinux types a pod or container may ask for ("" or absent is the runtime's default).
    static let allowedSELinuxTypes: Set<String> = ["", "container_t", "container_init_t", "container_kvm_t", "container_engine_t"]
    /// Seccomp profile types the restricted level accepts.
    static let allowedSeccompTypes: Set<String> = ["RuntimeDefault", "Localhost"]
    /// AppArmor profile types the baseline accepts (not Unconfined).
    static let allowedAppArmorTypes: Set<String> = ["RuntimeDefault", "Localhost"]

    /// Every pod template a parsed YAML document holds: a Pod's own spec, the `template` of a
    /// Deployment, StatefulSet, DaemonSet, ReplicaSet, ReplicationController or Job, a CronJob's
    /// job template's. Other kinds hold none.
    static func podTemplates(in document: [String: Any]) -> [PodTemplate] {
        let kind = document["kind"] as? String ?? ""
        let name = (document["metadata"] as? [String: Any])?["name"] as? String ?? "?"
        let spec = document["spec"] as? [String: Any] ?? [:]
        let template: [String: Any]?
        switch kind {
        case "Pod": template = document
        case "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController", "Job": template = spec["template"] as? [String: Any]
        case "CronJob": template = ((spec["jobTemplate"] as? [String: Any])?["spec"] as? [String: Any])?["template"] as? [String: Any]
        default: template = nil
        }
        guard let template, let podSpec = template["spec"] as? [String: Any] else { return [] }
        return [PodTemplate(owner: "\(kind)/\(name)", metadata: template["metadata"] as? [String: Any] ?? [:], spec: podSpec)]
    }

    /// Every control `template` fails, in the order of `Check.allCases`; empty when it meets the level.
    static func violations(_ template: PodTemplate) -> [Violation] {
        Check.allCases.flatMap { check in violations(template, check).map { Violation(check: check, detail: $0) } }
    }

    /// What fails one control, each as "field: value".
    static func violations(_ template: PodTemplate, _ check: Check) -> [String] {
        let spec = template.spec
        let pod = spec["securityContext"] as? [String: Any] ?? [:]
        let containers = containers(of: spec)
        func context(_ container: [String: Any]) -> [String: Any] { container["securityContext"] as? [String: Any] ?? [:] }
        func label(_ container: [String: Any]) -> String { "container \(container["name"] as? String ?? "?")" }
        switch check {
        case .hostProcess:
            return ([("pod", pod)] + containers.map { (label($0), context($0)) }).compactMap { owner, context in
                ((context["windowsOptions"] as? [String: Any])?["hostProcess"] as? Bool) == true ? "\(owner) windowsOptions.hostProcess: true" : nil
            }
        case .hostNamespaces:
            return ["hostNetwork", "hostPID", "hostIPC"].compactMap { field in spec[field] as? Bool == true ? "spec.\(field): true" : nil }
        case .privilegedContainers:
            return containers.compactMap { context($0)["privileged"] as? Bool == true ? "\(label($0)) privileged: true" : nil }
        case .capabilities:
            return containers.flatMap { container -> [String] in
                let capabilities = context(container)["capabilities"] as? [String: Any] ?? [:]
                let drop = Set((capabilities["drop"] as? [Any] ?? []).compactMap { $0 as? String })
                let add = (capabilities["add"] as? [Any] ?? []).map { "\($0)" }
                var found: [String] = []
                if !drop.contains("ALL") { found.append("\(label(container)) capabilities.drop lacks ALL: \(drop.sorted())") }
                for capability in add where !addableCapabilities.contains(capability) { found.append("\(label(container)) capabilities.add: \(capability)") }
                return found
            }
        case .hostPathVolumes:
            return volumes(of: spec).compactMap { $0["hostPath"] != nil ? "volume \($0["name"] as? String ?? "?") is a hostPath" : nil }
        case .hostPorts:
            return containers.flatMap { container in
                (container["ports"] as? [[String: Any]] ?? []).compactMap { port in
                    let hostPort = port["hostPort"] as? Int ?? 0
                    return hostPort != 0 ? "\(label(container)) hostPort: \(hostPort)" : nil
                }
            }
        case .appArmor:
            var found: [String] = []
            for (owner, context) in [("pod", pod)] + containers.map({ (label($0), context($0)) }) {
                if let type = (context["appArmorProfile"] as? [String: Any])?["type"] as? String, !allowedAppArmorTypes.contains(type) {
                    found.append("\(owner) appArmorProfile.type: \(type)")
                }
            }
            let annotations = template.metadata["annotations"] as? [String: Any] ?? [:]
            for (key, value) in annotations where key.hasPrefix("container.apparmor.security.beta.kubernetes.io/") {
                let value = "\(value)"
                if value != "runtime/default" && !value.hasPrefix("localhost/") { found.append("annotation \(key): \(value)") }
            }
            return found
        case .seLinux:
            return ([("pod", pod)] + containers.map { (label($0), context($0)) }).flatMap { owner, context -> [String] in
                guard let options = context["seLinuxOptions"] as? [String: Any] else { return [] }
                var found: [String] = []
                if let type = options["type"] as? String, !allowedSELinuxTypes.contains(type) { found.append("\(owner) seLinuxOptions.type: \(type)") }
                for field in ["user", "role"] where !((options[field] as? String) ?? "").isEmpty {
                    found.append("\(owner) seLinuxOptions.\(field): \(options[field] ?? "")")
                }
                return found
            }
        case .procMountType:
            return containers.compactMap { container in
                guard let mount = context(container)["procMount"] as? String, mount != "Default" else { return nil }
                return "\(label(container)) procMount: \(mount)"
            }
        case .seccomp:
            var found: [String] = []
            let podType = (pod["seccompProfile"] as? [String: Any])?["type"] as? String
            if let podType, !allowedSeccompTypes.contains(podType) { found.append("pod seccompProfile.type: \(podType)") }
            for container in containers {
                let type = (context(container)["seccompProfile"] as? [String: Any])?["type"] as? String
                if let type, !allowedSeccompTypes.contains(type) {
                    found.append("\(label(container)) seccompProfile.type: \(type)")
                } else if type == nil && (podType == nil || !allowedSeccompTypes.contains(podType ?? "")) {
                    found.append("\(label(container)) has no seccompProfile, nor has the pod RuntimeDefault or Localhost")
                }
            }
            let annotations = template.metadata["annotations"] as? [String: Any] ?? [:]
            for (key, value) in annotations
            where key.hasPrefix("seccomp.security.alpha.kubernetes.io/") || key.hasPrefix("container.seccomp.security.alpha.kubernetes.io/") {
                if "\(value)" == "unconfined" { found.append("annotation \(key): unconfined") }
            }
            return found
        case .sysctls:
            return (pod["sysctls"] as? [[String: Any]] ?? []).compactMap { sysctl in
                let name = sysctl["name"] as? String ?? "?"
                return safeSysctls.contains(name) ? nil : "pod sysctl \(name)"
            }
        case .volumeTypes:
            return volumes(of: spec).flatMap { volume in
                volume.keys.filter { $0 != "name" && !allowedVolumeTypes.contains($0) }.sorted().map { "volume \(volume["name"] as? String ?? "?") is a \($0)" }
            }
        case .privilegeEscalation:
            return containers.compactMap { container in
                let value = context(container)["allowPrivilegeEscalation"]
                return value as? Bool == false ? nil : "\(label(container)) allowPrivilegeEscalation: \(value.map { "\($0)" } ?? "unset (true)")"
            }
        case .runningAsNonRoot:
            let podNonRoot = pod["runAsNonRoot"] as? Bool
            var found: [String] = []
            if podNonRoot == false { found.append("pod runAsNonRoot: false") }
            for container in containers {
                let own = context(container)["runAsNonRoot"] as? Bool
                if own == false {
                    found.append("\(label(container)) runAsNonRoot: false")
                } else if own == nil && podNonRoot != true {
                    found.append("\(label(container)) runAsNonRoot unset, nor is it true for the pod")
                }
            }
            return found
        case .runningAsNonRootUser:
            return ([("pod", pod)] + containers.map { (label($0), context($0)) }).compactMap { owner, context in
                context["runAsUser"] as? Int == 0 ? "\(owner) runAsUser: 0" : nil
            }
        }
    }

    /// The containers, init containers and ephemeral containers of a pod spec.
    private static func containers(of spec: [String: Any]) -> [[String: Any]] {
        ["containers", "initContainers", "ephemeralContainers"].flatMap { spec[$0] as? [[String: Any]] ?? [] }
    }

    /// The volumes of a pod spec.
    private static func volumes(of spec: [String: Any]) -> [[String: Any]] {
        spec["volumes"] as? [[String: Any]] ?? []
    }
}
