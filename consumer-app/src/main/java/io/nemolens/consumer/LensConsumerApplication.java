package io.nemolens.consumer;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** Consumes OTLP telemetry from RabbitMQ and hands decoded records to {@code SignalHandler} beans. */
@SpringBootApplication
public class LensConsumerApplication {

    public static void main(String[] args) {
        SpringApplication.run(LensConsumerApplication.class, args);
    }
}
