package io.amlease.process;

import io.amlease.lease.LeaseConfig;
import java.io.File;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * How to start another JVM on this one's {@code java} and class path, from wherever the child
 * runs: the class path's entries made absolute (a YARN container's are relative to its working
 * directory).
 */
public final class ThisJvm {
  private ThisJvm() {}

  /** This JVM's {@code java} executable. */
  public static String java() {
    return ProcessHandle.current().info().command().orElse("java");
  }

  /** This JVM's class path, every entry absolute. */
  public static String absoluteClassPath() {
    return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
        .filter(e -> !e.isEmpty())
        .map(e -> e.endsWith("*") ? Path.of(e.substring(0, e.length() - 1)).toAbsolutePath() + "/*"
            : Path.of(e).toAbsolutePath().toString())
        .collect(Collectors.joining(File.pathSeparator));
  }

  /** System properties a child client needs as this JVM has them: logging, ZooKeeper's TLS/SASL. */
  private static final String JAAS = "java.security.auth.login.config";
  private static final List<String> PASSED_ON = List.of("log4j2.configurationFile", JAAS,
      "java.security.krb5.conf");

  /**
   * {@code amlease publish} as a command prefix for COMMAND or a master, which they run unquoted:
   * {@code $AMLEASE_PUBLISH rpc=host:port}, authenticated as the owner of {@code config}'s lease
   * (its ACL credentials file, or its SASL principal and JAAS login context, from {@code jaas} or
   * else this JVM's JAAS file, which is passed on). A small, C1-only JVM with this one's logging
   * and ZooKeeper client settings (the {@code zookeeper.*} properties but passwords: a command
   * line is public, so a key store's password must come from a file or the JAAS set-up). Paths
   * with spaces are not supported.
   */
  public static String publishCommand(LeaseConfig config, java.util.Optional<Path> jaas) {
    List<String> words = new java.util.ArrayList<>(List.of(java(), "-Xmx64m", "-XX:+UseSerialGC",
        "-XX:TieredStopAtLevel=1"));
    System.getProperties().stringPropertyNames().stream().sorted()
        .filter(k -> PASSED_ON.contains(k) || k.startsWith("zookeeper."))
        .filter(k -> !k.toLowerCase(java.util.Locale.ROOT).contains("password"))
        .filter(k -> jaas.isEmpty() || !k.equals(JAAS))
        .forEach(k -> words.add("-D" + k + "=" + System.getProperty(k)));
    jaas.ifPresent(j -> words.add("-D" + JAAS + "=" + j.toAbsolutePath()));
    words.addAll(List.of("-cp", absoluteClassPath(), "io.amlease.cli.Main", "publish"));
    config.aclCredentials().ifPresent(c -> words.addAll(List.of("--acl-credentials",
        c.file().toAbsolutePath().toString())));
    config.saslPrincipal().ifPresent(p -> words.addAll(List.of("--sasl-principal", p,
        "--sasl-login-context", config.saslLoginContext())));
    return String.join(" ", words);
  }
}
