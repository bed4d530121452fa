package io.amlease.testkit;

import java.io.IOException;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * The proxy's mode, and the lock that makes a mode switch take effect at once.
 *
 * <p>Every forwarded write (and every forwarded end-of-stream) runs under the read lock after checking
 * that the mode is {@link FaultProxy.Mode#FORWARDING}; a mode switch takes the write lock. So when
 * {@link #switchTo} returns, no write is in flight and none will start until {@code FORWARDING} again:
 * a byte read just before {@code silent()} cannot slip out after it. Many connections write at once
 * under the shared read lock; only a mode switch excludes them.
 */
final class Gate {

    @FunctionalInterface
    interface IoAction {
        void run() throws IOException;
    }

    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    /** Monitor that waiting pumps sleep on; notified on every mode change, connection close and close(). */
    private final Object changed = new Object();
    private volatile FaultProxy.Mode mode = FaultProxy.Mode.FORWARDING;
    private volatile boolean closed;

    FaultProxy.Mode mode() {
        return mode;
    }

    /**
     * Switches mode once no forwarded write is in flight; {@code whileHeld} runs before any write may
     * resume, so it sees (and may close) a quiet set of connections.
     */
    void switchTo(FaultProxy.Mode next, Runnable whileHeld) {
        lock.writeLock().lock();
        try {
            mode = next;
            whileHeld.run();
        } finally {
            lock.writeLock().unlock();
        }
        wakeAll();
    }

    /** Runs {@code action} with the current mode, which cannot change until it returns. */
    <T> T withMode(Function<FaultProxy.Mode, T> action) {
        lock.readLock().lock();
        try {
            return action.apply(mode);
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * Waits until the proxy forwards, then runs {@code action} while forwarding cannot be switched off.
     * Returns false, without running it, once {@code alive} turns false or the gate closes.
     */
    boolean forward(BooleanSupplier alive, IoAction action) throws IOException, InterruptedException {
        while (awaitForwarding(alive)) {
            lock.readLock().lock();
            try {
                if (mode == FaultProxy.Mode.FORWARDING && alive.getAsBoolean()) {
                    action.run();
                    return true;
                }
            } finally {
                lock.readLock().unlock();
            }
        }
        return false;
    }

    /** Waits (without holding the lock) until forwarding; false once {@code alive} fails or closed. */
    boolean awaitForwarding(BooleanSupplier alive) throws InterruptedException {
        synchronized (changed) {
            while (mode != FaultProxy.Mode.FORWARDING && !closed && alive.getAsBoolean()) {
                changed.wait();
            }
            return !closed && alive.getAsBoolean();
        }
    }

    void wakeAll() {
        synchronized (changed) {
            changed.notifyAll();
        }
    }

    void close() {
        closed = true;
        wakeAll();
    }
}
