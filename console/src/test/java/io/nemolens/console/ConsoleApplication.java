package io.nemolens.console;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/**
 * The console's tests' application: the consumer library, the poison tooling and the console (and the archive,
 * on the test class path), each by its auto-configuration, and nothing scanned.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
class ConsoleApplication {}
