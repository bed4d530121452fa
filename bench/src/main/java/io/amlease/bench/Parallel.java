package io.amlease.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Runs one scenario for every contender at once: each has its own proxy and lease path, and all
 * follow the same fault schedule, so the comparison is side by side in time as well.
 */
final class Parallel {
  interface PerContender<T> {
    T run(Contender c) throws Exception;
  }

  private Parallel() {}

  static <T> Map<Contender, T> forEach(List<Contender> contenders, PerContender<T> body)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(contenders.size(), r -> {
      Thread t = new Thread(r, "bench-contender");
      t.setDaemon(true);
      return t;
    });
    try {
      Map<Contender, Future<T>> futures = new LinkedHashMap<>();
      for (Contender c : contenders) {
        futures.put(c, pool.submit(() -> body.run(c)));
      }
      Map<Contender, T> out = new LinkedHashMap<>();
      for (var e : futures.entrySet()) {
        try {
          out.put(e.getKey(), e.getValue().get());
        } catch (ExecutionException ex) {
          throw ex.getCause() instanceof Exception cause ? cause : ex;
        }
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }
}
