import type { Operation } from "@imagehub/domain";
import { applyDecorators, HttpCode, RequestMapping, RequestMethod, SetMetadata } from "@nestjs/common";

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

export const UndocumentedPublic = () => SetMetadata(UNDOCUMENTED_PUBLIC, true);

/** `/v1/images/{format}/{imageId}.jpg` → `/v1/images/:format/:imageId.jpg` */
export function toNestPath(openApiPath: string): string {
  return openApiPath.replace(/\{(\w+)\}/g, ":$1");
}
