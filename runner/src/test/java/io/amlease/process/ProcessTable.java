package io.amlease.process;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The process table as a test sees it. A process that escaped its runner (the bug these tests look
 * for) is no longer anyone's descendant, so it is found by a marker in its arguments instead.
 */
public final class ProcessTable {
  private ProcessTable() {}

  /**
   * An argument for {@code sleep} that no other process on the machine has: {@code 777.<random>}.
   */
  public static String marker() {
    return "777." + ThreadLocalRandom.current().nextInt(100_000, 1_000_000);
  }

  /** Live {@code sleep MARKER} processes (zombies have no arguments and do not count). */
  public static List<ProcessHandle> sleeping(String marker) {
    return ProcessHandle.allProcesses()
        .filter(p -> p.info().command().map(c -> c.endsWith("/sleep")).orElse(false))
        .filter(p -> p.info().arguments().map(a -> a.length == 1 && a[0].equals(marker))
            .orElse(false))
        .toList();
  }

  /** Live processes whose arguments include every one of {@code words}. */
  public static List<ProcessHandle> withArguments(String... words) {
    return ProcessHandle.allProcesses()
        .filter(p -> p.info().arguments().map(a -> Arrays.asList(a).containsAll(List.of(words)))
            .orElse(false))
        .toList();
  }

  /**
   * The arguments of {@code pid} from {@code /proc/PID/cmdline}, however long (the JDK gives none
   * for a long command line); empty once the process is gone.
   */
  public static List<String> cmdline(long pid) {
    try {
      String raw = Files.readString(Path.of("/proc", Long.toString(pid), "cmdline"));
      return raw.isEmpty() ? List.of() : List.of(raw.split("\0"));
    } catch (IOException e) {
      return List.of();
    }
  }

  /** The process group of {@code pid} (Linux {@code /proc}); empty once the process is gone. */
  public static OptionalLong pgid(long pid) {
    return statField(pid, 2);
  }

  /** The session of {@code pid}; empty once the process is gone. */
  public static OptionalLong sid(long pid) {
    return statField(pid, 3);
  }

  /** Field {@code index} after the command name in {@code /proc/PID/stat} (0 is the state). */
  private static OptionalLong statField(long pid, int index) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      // The command name is in parentheses and may itself contain spaces and parentheses.
      String[] rest = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return OptionalLong.of(Long.parseLong(rest[index]));
    } catch (IOException e) {
      return OptionalLong.empty();
    }
  }
}
