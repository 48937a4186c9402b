import { ValidationError, ValidationPipe } from '@nestjs/common';
import { AppError } from '../errors/app-error';

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
 * Strips properties that no DTO declares, converts query strings to the declared
 * types and answers 400 with every field problem in one message.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    transform: true,
    forbidUnknownValues: true,
    exceptionFactory: (errors) => {
      const lines = describeValidationErrors(errors);
      return new AppError('VALIDATION_FAILED', lines.length > 0 ? lines.join('; ') : 'The request is not valid');
    },
  });
}
