import InstanceAPI
import Kafka
import Pipeline

/// The status an `iidbatch` command exits with, as BSD's sysexits.h names them, so a script can
/// tell a typo from an outage from bad data. The one owner of these numbers.
///
/// 1 is not among them: it is the answer "no" of a command that checks something (`reconcile`
/// found a request without an outcome, `outcomes --subject` found the subject not erased,
/// `demo` lost a request), not a failure.
package enum ExitStatus: Int32, Sendable, CaseIterable {
    /// Everything worked.
    case ok = 0
    /// EX_USAGE: the command line is wrong (an unknown flag, a missing or malformed value); usage
    /// help is printed with the error.
    case usage = 64
    /// EX_DATAERR: the input data is wrong (an item file with bad lines under `--strict`, no
    /// items, not UTF-8, no such CSV column, a CSV header cut on the wrong delimiter or that
    /// cannot be read; a record
    /// the broker refuses as too large).
    case dataError = 65
    /// EX_NOINPUT: an input file named on the command line (or a key file named by
    /// `GOOGLE_APPLICATION_CREDENTIALS`) does not exist or cannot be read.
    case noInput = 66
    /// EX_UNAVAILABLE: a broker or backend did not answer within `--timeout` (or refused the work
    /// for a reason of its own), or a metadata server that is there did not answer: the message
    /// names what did not answer; or an `--http-port` another process holds for now.
    case unavailable = 69
    /// EX_SOFTWARE: an internal error, a bug or an invariant that did not hold.
    case software = 70
    /// EX_IOERR: a file could not be written.
    case ioError = 74
    /// EX_CONFIG: the configuration is wrong: a pipeline file, a key file, a Kafka property, a
    /// topic the cluster does not have (and does not create), credentials, TLS or ACLs the broker
    /// refuses, no credentials and no metadata server, an `--http-port` not allowed or not this
    /// machine's.
    case config = 78

    /// The status for a Kafka failure that ends a command.
    package init(_ error: KafkaError) {
        switch error {
        case .invalidConfiguration, .malformedPropertyAssignment, .malformedPropertiesFile, .malformedPropertyVariable, .clientCreation:
            self = .config
        case .invalidArgument:
            // Thrown for a topic the cluster does not have, before any record is read or sent.
            self = .config
        case .broker(let code, _):
            switch code {
            case .topicAuthorizationFailed, .clusterAuthorizationFailed, .groupAuthorizationFailed, .saslAuthenticationFailed, .authentication, .ssl,
                .unknownTopic, .unknownTopicOrPartition, .unknownPartition, .topicException:
                self = .config
            case .messageSizeTooLarge, .recordListTooLarge, .invalidRecord:
                self = .dataError
            default:
                // Timeouts, transport errors, all brokers down, no leader: the cluster did not do
                // the work (sysexits' catch-all for a service that failed).
                self = .unavailable
            }
        case .queueFull, .timedOut:
            self = .unavailable
        case .closed, .cancelled, .embedded:
            self = .software
        }
    }

    /// The status for a pipeline file that cannot be used: configuration, whether the file is
    /// missing, unreadable or wrong.
    package init(_ error: PipelineFileError) {
        self = .config
    }

    /// The status for credentials that cannot be had: a key file that is missing or unreadable
    /// is no input; one that is malformed, or a setting of how credentials are found that
    /// cannot be used (`invalidSetting`), is configuration.
    package init(_ error: CredentialsError) {
        switch error {
        case .fileNotFound, .unreadable: self = .noInput
        default: self = .config
        }
    }

    /// The status for credentials found nowhere: a key file `GOOGLE_APPLICATION_CREDENTIALS`
    /// names ends as that file named by `--credentials` would (missing: no input); a metadata
    /// server that is there and failing (no answer; still refusing or failing after its ready
    /// window; on GKE, GCE or Cloud Run it serves them) is unavailable; none there (off Google Cloud) or one without credentials is configuration,
    /// so a supervisor does not restart into the same failure.
    package init(_ error: ApplicationDefaultCredentials.NotFound) {
        if let keyFile = error.keyFileError {
            self.init(keyFile)
        } else {
            self = error.failingMetadataServer == nil ? .config : .unavailable
        }
    }

    /// The status for a worker that stopped itself: its Kafka error's, or internal for an
    /// outcome that cannot be encoded.
    package init(_ error: PipelineWorkerError) {
        switch error {
        case .consumer(_, let kafka), .publish(_, _, let kafka): self.init(kafka)
        case .unpublishable: self = .software
        }
    }

    /// The status for an error no command classified: a Kafka error by its kind, anything else
    /// internal.
    package init(unclassified error: any Error) {
        switch error {
        case let error as RuntimeError: self = error.status
        case let error as ServiceFailure: self = error.status
        case let error as KafkaError: self.init(error)
        case let error as PipelineFileError: self.init(error)
        case let error as PipelineWorkerError: self.init(error)
        case let error as CredentialsError: self.init(error)
        case let error as ApplicationDefaultCredentials.NotFound: self.init(error)
        default: self = .software
        }
    }
}
