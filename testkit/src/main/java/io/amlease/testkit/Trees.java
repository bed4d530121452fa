package io.amlease.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** Directory trees a test or a cluster made and no longer needs. */
public final class Trees {
  private Trees() {}

  /** Deletes {@code root} and everything under it; a missing root is already deleted. */
  public static void delete(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    List<Path> deepestFirst;
    try (Stream<Path> files = Files.walk(root)) {
      deepestFirst = files.sorted(Comparator.reverseOrder()).toList();
    }
    for (Path p : deepestFirst) {
      Files.deleteIfExists(p);
    }
  }
}
