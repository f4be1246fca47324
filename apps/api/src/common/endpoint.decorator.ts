import type { Operation } from "@imagehub/domain";
import {
  applyDecorators,
  createParamDecorator,
  type ExecutionContext,
  HttpCode,
  InternalServerErrorException,
  RequestMapping,
  RequestMethod,
  SetMetadata,
} from "@nestjs/common";
import type { FastifyRequest } from "fastify";

export const OPERATION = Symbol("Operation");
/** Routes that are not part of the /v1 interface (the API reference itself) and need no key. */
export const UNDOCUMENTED_PUBLIC = Symbol("UndocumentedPublic");

/** Maps a handler to an operation of `@imagehub/domain`: route, status, validation, auth and docs. */
export function Endpoint(operation: Operation): MethodDecorator {
  return applyDecorators(
    RequestMapping({ path: toNestPath(operation.path), method: RequestMethod[operation.method] }),
    HttpCode(operation.success.status),
    SetMetadata(OPERATION, operation),
  );
}

/**
 * The one id the route's path names, whatever its operation calls it (/v1's `{apiKeyWebhookId}`, the web
 * area's `{webhookId}`), so that one handler serves both.
 */
export const PathId = createParamDecorator((_: unknown, context: ExecutionContext): string => {
  const operation = Reflect.getMetadata(OPERATION, context.getHandler()) as Operation | undefined;
  const [name, ...others] = Object.keys(operation?.params?.shape ?? {});
  const params = context.switchToHttp().getRequest<FastifyRequest>().params as Record<string, string>;
  const id = name === undefined ? undefined : params[name];
  if (id === undefined || others.length > 0) {
    throw new InternalServerErrorException(`route ${context.getHandler().name} names no single path id`);
  }
  return id;
});

export const UndocumentedPublic = () => SetMetadata(UNDOCUMENTED_PUBLIC, true);

/** `/v1/images/{format}/{imageId}.jpg` → `/v1/images/:format/:imageId.jpg` */
export function toNestPath(openApiPath: string): string {
  return openApiPath.replace(/\{(\w+)\}/g, ":$1");
}
