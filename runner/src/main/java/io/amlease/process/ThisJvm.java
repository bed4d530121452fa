package io.amlease.process;

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

  /**
   * {@code amlease publish} as a command prefix for COMMAND or a master, which they run unquoted:
   * {@code $AMLEASE_PUBLISH rpc=host:port} ({@code credentials}: the lease's ACL credentials file,
   * or null). Paths with spaces are not supported.
   */
  public static String publishCommand(Path credentials) {
    List<String> words = new java.util.ArrayList<>(List.of(java(), "-cp", absoluteClassPath(),
        "io.amlease.cli.Main", "publish"));
    if (credentials != null) {
      words.addAll(List.of("--acl-credentials", credentials.toAbsolutePath().toString()));
    }
    return String.join(" ", words);
  }
}
