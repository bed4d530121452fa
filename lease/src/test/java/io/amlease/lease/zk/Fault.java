package io.amlease.lease.zk;

import io.amlease.testkit.FaultProxy;

/** The two network faults of the fault proxy. */
enum Fault {
  /** Connections stay open, nothing gets through: the client notices only by silence. */
  SILENT {
    @Override
    void inject(FaultProxy proxy) {
      proxy.silent();
    }
  },
  /** Connections are reset and refused: the client notices at once. */
  RESET {
    @Override
    void inject(FaultProxy proxy) {
      proxy.reset();
    }
  };

  abstract void inject(FaultProxy proxy);
}
