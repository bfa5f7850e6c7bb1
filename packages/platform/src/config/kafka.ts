import { bool, ConfigError, fileContents, int, list, oneOf, optionalStr, secret, str } from './values.ts';

// Where the brokers are and how a process connects to them (TLS, SASL), and whether it manages the topics.

/** Kafka settings of a process that talks to the broker (the services, their CLIs, the tests' clients). */
export function readKafkaConfig() {
  return {
    kafkaBrokers: list('KAFKA_BROKERS', '127.0.0.1:9092'),
    /** Prefix of every topic name (and consumer group): isolates environments or test runs on one broker. */
    topicPrefix: str('KAFKA_TOPIC_PREFIX', ''),
    /** Level of the Kafka client's own log lines: `debug` shows them all, anything else its warnings. */
    kafkaClientLogLevel: optionalStr('KAFKAJS_LOG_LEVEL') === 'debug' ? ('debug' as const) : ('warn' as const),
    /**
     * How long a start waits for Kafka (its topics, the fan-out consumer's first join) before it
     * goes on without it and keeps trying in the background: services serve without the broker.
     */
    kafkaStartWaitMs: int('KAFKA_START_WAIT_MS', 15_000, 0),
    /** TLS and SASL of every connection to the brokers (createKafka in @cluster/kafka). */
    kafkaSecurity: readKafkaSecurity(),
    /**
     * The services create their topics and raise their message limit (true), or only check that
     * someone else did and refuse to start otherwise (false: managed Kafka whose application
     * credentials may not create topics or alter configs).
     */
    manageTopics: bool('KAFKA_MANAGE_TOPICS', true),
  };
}

/** SASL mechanisms the Kafka client speaks (KAFKA_SASL_MECHANISM). */
export const KAFKA_SASL_MECHANISMS = ['plain', 'scram-sha-256', 'scram-sha-512', 'oauthbearer'] as const;

/**
 * TLS and SASL of the Kafka connection, with every file a setting names already read (a missing
 * or unreadable one fails the start), except the OAuth token file, read again on each refresh.
 */
export interface KafkaSecurity {
  /** false: plaintext. Otherwise TLS, verified against `ca` (PEM) or Node's trusted CAs; `cert`/`key`: mutual TLS. */
  tls: false | { ca?: string; cert?: string; key?: string };
  sasl?:
    | { mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512'; username: string; password: string }
    | { mechanism: 'oauthbearer'; tokenFile?: string; tokenCommand?: string };
}

function readKafkaSecurity(): KafkaSecurity {
  return { tls: readKafkaTls(), sasl: readKafkaSasl() };
}

function readKafkaTls(): KafkaSecurity['tls'] {
  const files = ['KAFKA_SSL_CA_FILE', 'KAFKA_SSL_CERT_FILE', 'KAFKA_SSL_KEY_FILE'] as const;
  if (!bool('KAFKA_SSL', false)) {
    const stray = files.find((name) => optionalStr(name) !== undefined);
    if (stray) throw new ConfigError(`${stray} is set but KAFKA_SSL is not true`);
    return false;
  }
  const [ca, cert, key] = files.map(fileContents);
  if ((cert === undefined) !== (key === undefined))
    throw new ConfigError('KAFKA_SSL_CERT_FILE and KAFKA_SSL_KEY_FILE go together (mutual TLS): set both or neither');
  return { ca, cert, key };
}

function readKafkaSasl(): KafkaSecurity['sasl'] {
  const raw = optionalStr('KAFKA_SASL_MECHANISM');
  const mechanism = raw === undefined ? undefined : oneOf('KAFKA_SASL_MECHANISM', KAFKA_SASL_MECHANISMS, 'plain');
  const given = (name: string) => optionalStr(name) !== undefined || optionalStr(`${name}_FILE`) !== undefined;
  const password = ['KAFKA_SASL_USERNAME', 'KAFKA_SASL_PASSWORD'].find(given);
  const token = ['KAFKA_SASL_OAUTHBEARER_TOKEN_FILE', 'KAFKA_SASL_OAUTHBEARER_TOKEN_COMMAND'].find((n) => optionalStr(n));
  if (mechanism === undefined) {
    const stray = password ?? token;
    if (stray) throw new ConfigError(`${stray} is set but KAFKA_SASL_MECHANISM is not`);
    return undefined;
  }
  if (mechanism === 'oauthbearer') {
    const tokenFile = optionalStr('KAFKA_SASL_OAUTHBEARER_TOKEN_FILE');
    const tokenCommand = optionalStr('KAFKA_SASL_OAUTHBEARER_TOKEN_COMMAND');
    if ((tokenFile === undefined) === (tokenCommand === undefined))
      throw new ConfigError(
        'KAFKA_SASL_MECHANISM=oauthbearer needs exactly one of KAFKA_SASL_OAUTHBEARER_TOKEN_FILE and KAFKA_SASL_OAUTHBEARER_TOKEN_COMMAND',
      );
    if (password) throw new ConfigError(`${password} is not used with KAFKA_SASL_MECHANISM=oauthbearer: unset it`);
    if (tokenFile !== undefined) fileContents('KAFKA_SASL_OAUTHBEARER_TOKEN_FILE'); // readable now, read again on each refresh
    return { mechanism, tokenFile, tokenCommand };
  }
  if (token) throw new ConfigError(`${token} is only used with KAFKA_SASL_MECHANISM=oauthbearer, not ${mechanism}`);
  const required = (name: string) => {
    const v = secret(name);
    if (v === undefined) throw new ConfigError(`KAFKA_SASL_MECHANISM=${mechanism} needs ${name} or ${name}_FILE`);
    return v;
  };
  return { mechanism, username: required('KAFKA_SASL_USERNAME'), password: required('KAFKA_SASL_PASSWORD') };
}

export type KafkaConfig = ReturnType<typeof readKafkaConfig>;
