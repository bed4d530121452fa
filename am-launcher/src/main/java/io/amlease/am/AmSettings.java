package io.amlease.am;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.amlease.lease.Durations;
import io.amlease.lease.LeaseConfig;
import io.amlease.lease.LeaseConfigException;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;

/**
 * The application's settings ({@code amlease.am.*} keys) and its lease configuration
 * ({@code amlease.zk.*}, {@code amlease.lease.*}), read from one Hadoop {@link Configuration} and
 * validated here, once. The client writes them to {@code amlease-am.xml}; the AM reads that file.
 */
public record AmSettings(String name, String queue, int amMemoryMb, int amVcores, int maxAttempts,
    Duration attemptValidity, int workers, String workerCommand, int workerMemoryMb,
    int workerVcores, int workerMaxFailures, Duration workerFailuresValidity,
    List<String> masterCommand, Map<String, String> env, List<String> files, List<String> archives,
    String nodeLabel, String amNodeLabel, int metricsPort, String principal, String keytab,
    String amJavaOpts, LeaseConfig lease) {

  public static final String PREFIX = "amlease.";
  public static final String NAME = "amlease.am.name";
  public static final String QUEUE = "amlease.am.queue";
  public static final String AM_MEMORY = "amlease.am.memory-mb";
  public static final String AM_VCORES = "amlease.am.vcores";
  public static final String MAX_ATTEMPTS = "amlease.am.max-attempts";
  public static final String ATTEMPT_VALIDITY = "amlease.am.attempt-validity";
  public static final String WORKERS = "amlease.am.workers";
  public static final String WORKER_COMMAND = "amlease.am.worker-command";
  public static final String WORKER_MEMORY = "amlease.am.worker-memory-mb";
  public static final String WORKER_VCORES = "amlease.am.worker-vcores";
  public static final String WORKER_MAX_FAILURES = "amlease.am.worker-max-failures";
  public static final String WORKER_FAILURES_VALIDITY = "amlease.am.worker-failures-validity";
  public static final String MASTER_COMMAND = "amlease.am.master-command";
  /**
   * The node label (YARN partition) of the worker containers, and of the AM's unless
   * {@link #AM_NODE_LABEL}; empty: the queue's default.
   */
  public static final String NODE_LABEL = "amlease.am.node-label";
  /** The node label of the AM's container; empty: {@link #NODE_LABEL}. */
  public static final String AM_NODE_LABEL = "amlease.am.am-node-label";
  /**
   * A port on which the AM also serves {@code /metrics} alone, open to any host that reaches it,
   * for scrapers (0: any free port, published in the leader info as the {@code metrics} URL); unset
   * or -1: none. The status page itself is served only through the RM's web proxy (AmIpFilter).
   */
  public static final String METRICS_PORT = "amlease.am.metrics-port";
  /**
   * The Kerberos principal the AM logs in as, from {@link #KEYTAB} (as Spark's
   * {@code spark.kerberos.principal}): to obtain fresh delegation tokens on a secure cluster, and
   * to log in to ZooKeeper when the lease is SASL-protected; empty: none.
   */
  public static final String PRINCIPAL = "amlease.am.principal";
  /**
   * The keytab of {@link #PRINCIPAL}: a local file at submit, which travels to the AM's container
   * only, privately, as {@link #KEYTAB_FILE}; empty: none.
   */
  public static final String KEYTAB = "amlease.am.keytab";
  /** The name under which the AM finds its keytab in its working directory. */
  public static final String KEYTAB_FILE = "amlease.keytab";
  /** The JAAS file the AM writes in its working directory for a SASL lease. */
  public static final String JAAS_FILE = "amlease-jaas.conf";
  /**
   * More options for the AM's JVM, e.g. {@code -Djava.security.krb5.conf=…} or GC settings (as
   * MapReduce's {@code yarn.app.mapreduce.am.command-opts}); one line.
   */
  public static final String AM_JAVA_OPTS = "amlease.am.java-opts";
  public static final String ENV = "amlease.am.env";
  /** Names of the files shipped with the application (JSON list), localized in every container. */
  public static final String FILES = "amlease.am.files";
  /**
   * Names of the archives shipped with the application (JSON list): YARN unpacks each into a
   * directory of that name in every container's working directory.
   */
  public static final String ARCHIVES = "amlease.am.archives";
  /** What YARN unpacks: a shipped archive's name must end so. */
  public static final List<String> ARCHIVE_SUFFIXES =
      List.of(".zip", ".tar", ".tar.gz", ".tgz", ".jar");
  /** Names the AM's own container uses; a shipped file must not take them. */
  public static final List<String> RESERVED_FILES =
      List.of("amlease-am.jar", "amlease-am.xml", "amlease-am-log4j2.xml", "amlease-zk-credentials",
          KEYTAB_FILE, JAAS_FILE);

  private static final ObjectMapper JSON = new ObjectMapper();

  /** @throws LeaseConfigException naming the first bad key */
  public static AmSettings from(Configuration conf) {
    String name = conf.getTrimmed(NAME);
    if (name == null || name.isEmpty() || !name.matches("[A-Za-z0-9._-]+")) {
      throw new LeaseConfigException(NAME, NAME + " ('" + name + "') is required: letters, digits, "
          + "'.', '_', '-'");
    }
    Map<String, String> leaseKeys = new LinkedHashMap<>();
    conf.getPropsWithPrefix(PREFIX).forEach((k, v) -> leaseKeys.put(PREFIX + k, v));
    leaseKeys.putIfAbsent(LeaseConfig.LEASE_PATH, "/amlease/" + name);
    leaseKeys.putIfAbsent(LeaseConfig.STOP_TIMEOUT, "5s");
    LeaseConfig lease = LeaseConfig.fromMap(leaseKeys).build();
    String principal = conf.getTrimmed(PRINCIPAL, "");
    String keytab = conf.getTrimmed(KEYTAB, "");
    // Both go into the AM's JAAS file: no quoting, and nothing its parser expands.
    if (!principal.matches("[^\\s\"\\\\$]*")) {
      throw new LeaseConfigException(PRINCIPAL, PRINCIPAL + " ('" + principal + "') must not "
          + "contain spaces, quotes, backslashes or '$'");
    }
    if (!lease.saslLoginContext().matches("[A-Za-z_][A-Za-z0-9._-]*")) {
      throw new LeaseConfigException(LeaseConfig.SASL_LOGIN_CONTEXT, LeaseConfig.SASL_LOGIN_CONTEXT
          + " ('" + lease.saslLoginContext() + "') must be a letter or '_', then letters, digits, "
          + "'.', '_', '-'");
    }
    if (principal.isEmpty() != keytab.isEmpty()) {
      String missing = principal.isEmpty() ? PRINCIPAL : KEYTAB;
      throw new LeaseConfigException(missing, missing + " is required with "
          + (principal.isEmpty() ? KEYTAB : PRINCIPAL) + ": the AM logs in as the principal from "
          + "the keytab");
    }
    if (lease.saslPrincipal().isPresent() && keytab.isEmpty()) {
      // Each attempt would exit 77: its container would have nothing to log in with.
      throw new LeaseConfigException(LeaseConfig.SASL_PRINCIPAL, LeaseConfig.SASL_PRINCIPAL
          + " needs " + PRINCIPAL + " and " + KEYTAB + " for a YARN application: the AM logs in "
          + "to ZooKeeper from that keytab (JAAS login context '" + lease.saslLoginContext()
          + "')");
    }
    String amJavaOpts = conf.getTrimmed(AM_JAVA_OPTS, "");
    // The NodeManager's launch script runs the command inside bash -c "…": a double quote,
    // backquote or backslash would end or alter that string, and every attempt would fail.
    if (amJavaOpts.chars().anyMatch(c -> c == '\n' || c == '\r' || c == '"' || c == '`'
        || c == '\\')) {
      throw new LeaseConfigException(AM_JAVA_OPTS, AM_JAVA_OPTS + " ('" + amJavaOpts + "') must "
          + "be one line without \", ` or \\ (use single quotes)");
    }
    int workers = atLeast(conf, WORKERS, 0, 0);
    String workerCommand = conf.getTrimmed(WORKER_COMMAND, "");
    if (workers > 0 && workerCommand.isEmpty()) {
      throw new LeaseConfigException(WORKER_COMMAND, WORKER_COMMAND + " is required when "
          + WORKERS + " is " + workers);
    }
    List<String> master = readJson(conf, MASTER_COMMAND, new TypeReference<List<String>>() {},
        List.of());
    if (master.isEmpty()) {
      throw new LeaseConfigException(MASTER_COMMAND, MASTER_COMMAND
          + " is required: the command the leading AM runs (after -- on the command line)");
    }
    List<String> files = shippedNames(conf, FILES, List.of());
    List<String> archives = shippedNames(conf, ARCHIVES, files);
    for (String a : archives) {
      if (ARCHIVE_SUFFIXES.stream().noneMatch(a::endsWith)) {
        throw new LeaseConfigException(ARCHIVES, ARCHIVES + ": '" + a + "' is not an archive YARN "
            + "unpacks (" + String.join(", ", ARCHIVE_SUFFIXES) + ")");
      }
    }
    Duration validity = Durations.parse(ATTEMPT_VALIDITY, conf.getTrimmed(ATTEMPT_VALIDITY, "1h"));
    // As Spark's default for executors: twice the workers, and at least 3.
    int maxFailures = atLeast(conf, WORKER_MAX_FAILURES, Math.max(3, 2 * workers), 0);
    Duration failuresValidity = Durations.parse(WORKER_FAILURES_VALIDITY,
        conf.getTrimmed(WORKER_FAILURES_VALIDITY, "1h"));
    if (failuresValidity.isZero() || failuresValidity.isNegative()) {
      throw new LeaseConfigException(WORKER_FAILURES_VALIDITY, WORKER_FAILURES_VALIDITY + " ("
          + Durations.format(failuresValidity) + ") must be positive");
    }
    String nodeLabel = label(conf, NODE_LABEL);
    String amNodeLabel = label(conf, AM_NODE_LABEL);
    int metricsPort = atLeast(conf, METRICS_PORT, -1, -1);
    if (metricsPort > 65535) {
      throw new LeaseConfigException(METRICS_PORT, METRICS_PORT + " (" + metricsPort
          + ") must be at most 65535");
    }
    return new AmSettings(name, conf.getTrimmed(QUEUE, "default"),
        atLeast(conf, AM_MEMORY, 512, 64), atLeast(conf, AM_VCORES, 1, 1),
        atLeast(conf, MAX_ATTEMPTS, 4, 1), validity, workers, workerCommand,
        atLeast(conf, WORKER_MEMORY, 256, 64), atLeast(conf, WORKER_VCORES, 1, 1), maxFailures,
        failuresValidity, master,
        readJson(conf, ENV, new TypeReference<Map<String, String>>() {}, Map.of()), files,
        archives, nodeLabel, amNodeLabel, metricsPort, principal, keytab, amJavaOpts, lease);
  }

  /**
   * A node label as YARN accepts one (a single label: YARN's scheduler does not evaluate label
   * expressions with {@code &&} or {@code ||}), or empty.
   */
  private static String label(Configuration conf, String key) {
    String v = conf.getTrimmed(key, "");
    if (!v.isEmpty() && !v.matches("[0-9A-Za-z][0-9A-Za-z_-]{0,254}")) {
      throw new LeaseConfigException(key, key + ": '" + v + "' is not a node label (a letter or "
          + "digit, then letters, digits, '-', '_'; at most 255)");
    }
    return v;
  }

  /** The AM container's node label: its own, else the application's; empty for none. */
  public String effectiveAmNodeLabel() {
    return amNodeLabel.isEmpty() ? nodeLabel : amNodeLabel;
  }

  /**
   * The names in {@code key} (a JSON list): each a plain file name, none reserved, none twice, and
   * none among {@code taken} (the other list's), since every container sees them all by name in its
   * working directory.
   */
  private static List<String> shippedNames(Configuration conf, String key, List<String> taken) {
    List<String> names = readJson(conf, key, new TypeReference<List<String>>() {}, List.of());
    for (int i = 0; i < names.size(); i++) {
      String f = names.get(i);
      if (f.isEmpty() || f.contains("/") || f.equals(".") || f.equals("..")) {
        throw new LeaseConfigException(key, key + ": '" + f + "' is not a file name");
      }
      if (RESERVED_FILES.contains(f)) {
        throw new LeaseConfigException(key, key + ": '" + f + "' is a name amlease uses for "
            + "itself; rename the file");
      }
      if (names.subList(0, i).contains(f) || taken.contains(f)) {
        throw new LeaseConfigException(key, key + ": two files are named '" + f + "'; every "
            + "container sees them by name in its working directory");
      }
    }
    return names;
  }

  /** These settings as configuration keys (the inverse of {@link #from}). */
  public Configuration toConfiguration() {
    Configuration c = new Configuration(false);
    lease.toMap().forEach(c::set);
    c.set(NAME, name);
    c.set(QUEUE, queue);
    c.setInt(AM_MEMORY, amMemoryMb);
    c.setInt(AM_VCORES, amVcores);
    c.setInt(MAX_ATTEMPTS, maxAttempts);
    c.set(ATTEMPT_VALIDITY, attemptValidity.toMillis() + "ms");
    c.setInt(WORKERS, workers);
    c.set(WORKER_COMMAND, workerCommand);
    c.setInt(WORKER_MEMORY, workerMemoryMb);
    c.setInt(WORKER_VCORES, workerVcores);
    c.setInt(WORKER_MAX_FAILURES, workerMaxFailures);
    c.set(WORKER_FAILURES_VALIDITY, workerFailuresValidity.toMillis() + "ms");
    c.set(NODE_LABEL, nodeLabel);
    c.set(AM_NODE_LABEL, amNodeLabel);
    c.setInt(METRICS_PORT, metricsPort);
    c.set(PRINCIPAL, principal);
    c.set(KEYTAB, keytab);
    c.set(AM_JAVA_OPTS, amJavaOpts);
    try {
      c.set(MASTER_COMMAND, JSON.writeValueAsString(masterCommand));
      c.set(ENV, JSON.writeValueAsString(env));
      c.set(FILES, JSON.writeValueAsString(files));
      c.set(ARCHIVES, JSON.writeValueAsString(archives));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return c;
  }

  private static int atLeast(Configuration conf, String key, int dflt, int min) {
    String v = conf.getTrimmed(key);
    int value;
    try {
      value = v == null ? dflt : Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new LeaseConfigException(key, key + ": '" + v + "' is not a whole number");
    }
    if (value < min) {
      throw new LeaseConfigException(key, key + " (" + value + ") must be at least " + min);
    }
    return value;
  }

  private static <T> T readJson(Configuration conf, String key, TypeReference<T> type, T dflt) {
    String v = conf.get(key);
    if (v == null || v.isBlank()) {
      return dflt;
    }
    try {
      return JSON.readValue(v, type);
    } catch (IOException e) {
      throw new LeaseConfigException(key, key + " is not valid JSON: " + e.getMessage());
    }
  }
}
