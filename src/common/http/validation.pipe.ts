import { type ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { AppError } from '../errors/app-error';
import { findUnstorableText } from '../validation/storable-values';

/** Flattens nested class-validator errors into "field: reason" lines. */
export function describeValidationErrors(errors: ValidationError[], parent = ''): string[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((reason) =>
      reason.startsWith(error.property) ? `${parent ? `${parent}.` : ''}${reason}` : `${field}: ${reason}`,
    );
    return [...own, ...describeValidationErrors(error.children ?? [], field)];
  });
}

/**
 * Refuses text no column can store (NUL, unpaired surrogates) in any body, query or
 * path parameter before a handler sees it, whatever its DTO says: otherwise such a
 * value fails its SQL statement with a 500, or is stored altered.
 */
class StorableTextValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type !== 'custom') {
      const field = findUnstorableText(value, metadata.data ?? '');
      if (field !== null) {
        throw new AppError('VALIDATION_FAILED', `${field || metadata.type} must not contain NUL characters or unpaired UTF-16 surrogates`);
      }
    }
    return super.transform(value, metadata);
  }
}

/**
 * Refuses unstorable text, strips properties that no DTO declares, converts query
 * strings to the declared types and answers 400 with every field problem in one message.
 */
export function createValidationPipe(): ValidationPipe {
  return new StorableTextValidationPipe({
    whitelist: true,
    transform: true,
    forbidUnknownValues: true,
    exceptionFactory: (errors) => {
      // Once each: two failed constraints of one field may share a message (IsString and Matches of a time).
      const lines = [...new Set(describeValidationErrors(errors))];
      return new AppError('VALIDATION_FAILED', lines.length > 0 ? lines.join('; ') : 'The request is not valid');
    },
  });
}
