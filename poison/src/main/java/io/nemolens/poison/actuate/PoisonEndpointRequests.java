package io.nemolens.poison.actuate;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationType;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvoker;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvokerAdvisor;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameter;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameters;
import org.springframework.boot.actuate.endpoint.invoke.ParameterMappingException;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * Bad requests to the {@link PoisonEndpoint} answer 400 with a body that says why, never 500 and never a
 * bare status: a field the operation does not know (a misspelled {@code dryRun} must not turn a dry run
 * into a replay), a value of the wrong type ({@code "max":"all"}), or a value the endpoint refuses
 * ({@code "max":-1}). The body is {@code {"status":400,"error":"Bad Request","message":"..."}}.
 *
 * <p>An {@link OperationInvokerAdvisor}: it sees every argument the request carried (body fields and query
 * parameters), which the operation's own parameters cannot. A body that is not JSON at all never reaches
 * it: Spring MVC answers that with its own 400.
 */
public final class PoisonEndpointRequests implements OperationInvokerAdvisor {

    @Override
    public OperationInvoker apply(
            EndpointId endpointId,
            OperationType operationType,
            OperationParameters parameters,
            OperationInvoker invoker) {
        if (!endpointId.equals(EndpointId.of(PoisonEndpoint.ID))) {
            return invoker;
        }
        Set<String> known = parameters.stream().map(OperationParameter::getName).collect(Collectors.toSet());
        return context -> {
            List<String> unknown = context.getArguments().keySet().stream()
                    .filter(name -> !known.contains(name))
                    .sorted()
                    .toList();
            if (!unknown.isEmpty()) {
                return badRequest("unknown field(s) " + String.join(", ", unknown) + "; this operation takes "
                        + known.stream().sorted().collect(Collectors.joining(", ")));
            }
            try {
                return invoker.invoke(context);
            } catch (ParameterMappingException e) {
                OperationParameter p = e.getParameter();
                return badRequest(p.getName() + " must be " + typeName(p.getType()) + ", got '" + e.getValue() + "'");
            } catch (InvalidEndpointRequestException e) {
                return badRequest(e.getReason() != null ? e.getReason() : e.toString());
            }
        };
    }

    private static WebEndpointResponse<Map<String, Object>> badRequest(String message) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", WebEndpointResponse.STATUS_BAD_REQUEST);
        body.put("error", "Bad Request");
        body.put("message", message);
        return new WebEndpointResponse<>(body, WebEndpointResponse.STATUS_BAD_REQUEST);
    }

    private static String typeName(Class<?> type) {
        if (type == Integer.class || type == int.class || type == Long.class || type == long.class) {
            return "a whole number";
        }
        if (type == Double.class || type == double.class) {
            return "a number";
        }
        if (type == Boolean.class || type == boolean.class) {
            return "true or false";
        }
        return "a " + type.getSimpleName();
    }
}
