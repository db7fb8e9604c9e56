import InstanceAPI
import Pipeline
import Testing

/// Which Firebase project a pipeline calls: its file's `project:` > `--project` >
/// `$GOOGLE_CLOUD_PROJECT` > the credentials' own, and what an operator may write as one.
@Suite("Project selection")
struct ProjectChoiceTests {
    @Test("each level wins over every level below it, and says where it came from")
    func precedence() {
        let all = ProjectChoice.resolve(pipeline: "from-file", option: "from-option", environment: "from-env", credentials: "from-key")
        #expect(all == ProjectChoice(id: "from-file", origin: .pipelineFile))
        #expect(
            ProjectChoice.resolve(pipeline: nil, option: "from-option", environment: "from-env", credentials: "from-key")
                == ProjectChoice(id: "from-option", origin: .option))
        #expect(
            ProjectChoice.resolve(pipeline: nil, option: nil, environment: "from-env", credentials: "from-key")
                == ProjectChoice(id: "from-env", origin: .environment))
        #expect(
            ProjectChoice.resolve(pipeline: nil, option: nil, environment: nil, credentials: "from-key") == ProjectChoice(id: "from-key", origin: .credentials))
        #expect(ProjectChoice.resolve(pipeline: nil, option: nil, environment: nil, credentials: nil) == nil)
    }

    @Test("an empty value counts as not given, as an empty GOOGLE_CLOUD_PROJECT does for Google's libraries")
    func emptyIsAbsent() {
        #expect(ProjectChoice.resolve(pipeline: nil, option: nil, environment: "", credentials: "from-key")?.origin == .credentials)
        #expect(ProjectChoice.resolve(pipeline: nil, option: nil, environment: "", credentials: "") == nil)
    }

    @Test("the log's words: the id and where it came from")
    func description() {
        #expect(ProjectChoice(id: "my-app", origin: .option).description == "my-app (from --project)")
        #expect(ProjectChoice(id: "my-app", origin: .environment).description == "my-app (from $GOOGLE_CLOUD_PROJECT)")
        #expect(ProjectChoice(id: "my-app", origin: .pipelineFile).description == "my-app (from the pipeline file)")
        #expect(ProjectChoice(id: "demo", origin: .credentials).description == "demo (from the credentials)")
    }

    @Test("project ids: Google's rule and legacy domain-scoped ids pass; nothing that changes a URL path does")
    func projectIDs() {
        for id in ["my-app", "my-firebase-app-1234", "a23456", String(repeating: "a", count: 30), "example.com:my-app", "google.com:sub-1-project"] {
            #expect(ProjectID.problem(with: id) == nil, "\(id)")
        }
        for id in [
            "", "short", String(repeating: "a", count: 31), "1starts-with-digit", "ends-with-", "Upper-Case", "under_score", "has space",
            "my-app/../other", "my-app?x=1", "my-app#frag", "my-app%2F", "domain:", ":my-app", "nodot:my-app", "exa mple.com:my-app", "a.com:b.com:my-app",
            "ünïcode-app",
        ] {
            let problem = ProjectID.problem(with: id)
            #expect(problem != nil, "\(id)")
            #expect(problem?.contains("'\(id)'") == true, "the message names the value: \(problem ?? "")")
        }
    }

    @Test("project: in a pipeline file is read and checked, naming the file and key")
    func pipelineFile() throws {
        let pipeline = try PipelineFile.parse("request-topic: d\nproject: my-firebase-app\n", file: "d.yaml", name: "d")
        #expect(pipeline.project == "my-firebase-app")
        #expect(try PipelineFile.parse("request-topic: d\n", file: "d.yaml", name: "d").project == nil)
        let error = #expect(throws: PipelineFileError.self) { try PipelineFile.parse("request-topic: d\nproject: my/app\n", file: "d.yaml", name: "d") }
        #expect(error?.key == "project")
        #expect(error?.description.contains("d.yaml: project: 'my/app' is not a Google Cloud project id") == true, "\(error?.description ?? "")")
        #expect(throws: PipelineFileError.self) { try PipelineFile.parse("request-topic: d\nproject: 123456789012\n", file: "d.yaml", name: "d") }
    }

    @Test("the APIs whose calls name no project: the Instance ID API's, never deletions or FCM v1")
    func projectlessAPIs() throws {
        let deletions = try PipelineFile.parse("request-topic: d\nops: [installations.delete]\n", file: "d.yaml", name: "d")
        #expect(deletions.projectlessAPIs.isEmpty)
        let v1 = try PipelineFile.parse("request-topic: t\nops: [topics.subscribe, topics.unsubscribe]\nbackend: fcm-v1\n", file: "t.yaml", name: "t")
        #expect(v1.projectlessAPIs.isEmpty)
        let iid = try PipelineFile.parse("request-topic: t\nops: [topics.subscribe, topics.unsubscribe]\nbackend: iid-batch\n", file: "t.yaml", name: "t")
        #expect(iid.projectlessAPIs == [.batchAdd, .batchRemove])
        let imports = try PipelineFile.parse("request-topic: a\nops: [apns.import]\n", file: "a.yaml", name: "a")
        #expect(imports.projectlessAPIs == [.batchImport])
    }

    @Test("the credentials' project is checked as a project id: a metadata server's page is no project")
    func credentialsProjectChecked() {
        let page = ProjectChoice.resolve(pipeline: nil, option: nil, environment: nil, credentials: "<html>Login</html>")
        #expect(page?.problem?.contains("is not a project id") == true, "\(page?.problem ?? "none")")
        #expect(ProjectChoice.resolve(pipeline: nil, option: nil, environment: nil, credentials: "..")?.problem != nil, "a path's parent")
        for id in ["my-project-1", "demo", "example.com:my-app"] {
            #expect(ProjectChoice.resolve(pipeline: nil, option: nil, environment: nil, credentials: id)?.problem == nil, "\(id)")
        }
        #expect(ProjectChoice.resolve(pipeline: "x!", option: nil, environment: nil, credentials: nil)?.problem == nil, "checked where given")
    }
}
