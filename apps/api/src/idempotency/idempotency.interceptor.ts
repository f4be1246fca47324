import type { Operation } from "@imagehub/domain";
import {
  type CallHandler,
  type ExecutionContext,
  HttpException,
  Injectable,
  type NestInterceptor,
} from "@nestjs/common";
import { Reflector } from "@nestjs/core";
import type { FastifyReply } from "fastify";
import { catchError, concatMap, from, map, type Observable, of, throwError } from "rxjs";
import type { Caller } from "../accounts/api-key-auth.service.js";
import { OPERATION } from "../common/endpoint.decorator.js";
import type { KeyedRequest } from "./held-key.decorator.js";
import { IdempotencyService } from "./idempotency.service.js";

/**
 * `Idempotency-Key` on every call that changes something: the first request with a key runs and its
 * answer is kept; the same key and request later get that answer again (`Idempotent-Replayed: true`),
 * without running anything. Runs after validation, so that the body compared is the parsed one. The calls
 * that change something are handed the key (`@HeldIdempotencyKey()`) and record their answer with their
 * write (idempotent-write.ts); the answer of the others (a buy, a download: repeating them changes
 * nothing) is recorded once they have answered.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly idempotency: IdempotencyService,
  ) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const operation = this.reflector.get<Operation | undefined>(OPERATION, context.getHandler());
    const request = context.switchToHttp().getRequest<KeyedRequest & { caller?: Caller }>();
    const header = request.headers["idempotency-key"];
    const key = Array.isArray(header) ? header[0] : header;
    if (!operation || operation.method === "GET" || key === undefined || !request.caller) {
      return next.handle();
    }
    const scope = { accountId: request.caller.account.id, key };
    const start = await this.idempotency.start(scope, request);
    if (start.kind === "replay") {
      void context.switchToHttp().getResponse<FastifyReply>().header("idempotent-replayed", "true");
      if (start.statusCode >= 400) throw new HttpException(start.response as object, start.statusCode);
      return of(start.response ?? undefined);
    }
    request.heldKey = { scope, statusCode: operation.success.status };
    return next.handle().pipe(
      concatMap((result) =>
        from(this.idempotency.succeeded(scope, operation.success.status, result)).pipe(map(() => result)),
      ),
      catchError((error: unknown) =>
        from(this.idempotency.failed(scope, error)).pipe(concatMap(() => throwError(() => error))),
      ),
    );
  }
}
